{#-
  Parsing rules shared by the staging models and the quarantine table raw_rejected (issue 9 item 1).

  A staging model and raw_rejected call the same macro for a field, so a record is either read by
  staging or listed in raw_rejected with its reason — never dropped silently. Known alternative
  spellings and formats are read, not rejected.
-#}

{% macro wag_parse_timestamp(expr) -%}
  {#- A local, naive TIMESTAMP from ISO text in any of the spellings wearable exporters write:
      'YYYY-MM-DD HH:MM:SS', 'YYYY-MM-DDTHH:MM:SS', with or without fractional seconds ('.000'),
      seconds, or a trailing 'Z' / UTC offset (dropped: Fitbit times are local wall clock), or a bare
      'YYYY-MM-DD' (midnight). NULL when the text is none of these. -#}
  try_strptime(
      regexp_replace(trim({{ expr }}), '(\.[0-9]+)?(Z|[+-][0-9]{2}:?[0-9]{2})?$', ''),
      ['%Y-%m-%d %H:%M:%S', '%Y-%m-%dT%H:%M:%S', '%Y-%m-%d %H:%M', '%Y-%m-%dT%H:%M', '%Y-%m-%d'])
{%- endmacro %}


{% macro wag_parse_date(expr) -%}
  {#- The calendar DATE of ISO text (any spelling of wag_parse_timestamp); NULL when not a date. -#}
  cast({{ wag_parse_timestamp(expr) }} as date)
{%- endmacro %}


{% macro wag_parse_utc_timestamp(expr) -%}
  {#- A TIMESTAMPTZ from ISO text with a zone ('2019-11-16T23:50:57Z', '…+01:00'); NULL otherwise. -#}
  try_cast(trim({{ expr }}) as timestamptz)
{%- endmacro %}


{% macro wag_parse_number(expr) -%}
  {#- A DOUBLE from text ('53.7', ' 4 ', '1e3'); NULL when the text is empty or not a number. -#}
  try_cast(nullif(trim(cast({{ expr }} as varchar)), '') as double)
{%- endmacro %}


{% macro wag_parse_flag(expr) -%}
  {#- A BOOLEAN from 'true'/'false' text in any case (JSON booleans arrive as that text); else NULL. -#}
  case lower(trim(cast({{ expr }} as varchar))) when 'true' then true when 'false' then false end
{%- endmacro %}


{% macro wag_is_blank(expr) -%}
  {#- True for NULL or empty/whitespace text: a missing value (no row), not a rejection. -#}
  ({{ expr }} is null or trim(cast({{ expr }} as varchar)) = '')
{%- endmacro %}


{% macro wag_reject_if(condition, reason, bad_value='null') -%}
  {#- One element of a record's list of reasons: {reason, bad_value} when `condition` holds, else NULL.
      `reason` is fixed text (counted by `wag build`), `bad_value` the SQL of the offending text. -#}
  case when {{ condition }} then {'reason': '{{ reason }}', 'bad_value': cast({{ bad_value }} as varchar)} end
{%- endmacro %}
