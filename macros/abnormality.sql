{#-
  The abnormality score of DESIGN.md §4, written once (issue 25). Used by daily_abnormality (every day,
  baseline = the whole history), eval_query_tuples (baseline = the days <= the query's t) and the
  analyst table macro wag_node_window (baseline = the days <= ref_day; its window mean is zeta of §7).
-#}

{% macro wag_abnormality_z(value, mu, sigma) -%}
  {#- The day's score z = |v - mu| / sigma, NULL when sigma is 0 or undefined (never NaN or inf) or v is
      missing. zeta over a window = the mean of z over the window's days with a value (§4). -#}
  case when {{ sigma }} > 0 then abs({{ value }} - {{ mu }}) / {{ sigma }} end
{%- endmacro %}


{% macro wag_abnormal_level(value, zeta, p33, p66) -%}
  {#- The abnormal level of a sample (§4): 'missing' where the day's value is missing, NULL where zeta is
      NULL, else the tertile of zeta among the subject-metric-window's samples: low <= p33 < medium <= p66
      < high (p33, p66: quantile_cont, i.e. linear interpolation). -#}
  case
        when {{ value }} is null then 'missing'
        when {{ zeta }} is null then null
        when {{ zeta }} <= {{ p33 }} then 'low'
        when {{ zeta }} <= {{ p66 }} then 'medium'
        else 'high'
    end
{%- endmacro %}
