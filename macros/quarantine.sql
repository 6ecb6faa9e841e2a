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
  {{ wag_try_strptime("regexp_replace(trim(" ~ expr ~ "), '(\\.[0-9]+)?(Z|[+-][0-9]{2}:?[0-9]{2})?$', '')",
                      ['%Y-%m-%d %H:%M:%S', '%Y-%m-%dT%H:%M:%S', '%Y-%m-%d %H:%M', '%Y-%m-%dT%H:%M', '%Y-%m-%d']) }}
{%- endmacro %}


{% macro wag_parse_date(expr) -%}
  {#- The calendar DATE of ISO text (any spelling of wag_parse_timestamp); NULL when not a date. -#}
  cast({{ wag_parse_timestamp(expr) }} as date)
{%- endmacro %}


{% macro wag_parse_utc_timestamp(expr) -%}
  {#- A TIMESTAMPTZ from ISO text with a zone ('2019-11-16T23:50:57Z', '…+01:00'); NULL otherwise. -#}
  {{ wag_utc_text_to_timestamp('trim(' ~ expr ~ ')') }}
{%- endmacro %}


{% macro wag_parse_number(expr) -%}
  {#- A DOUBLE from text ('53.7', ' 4 ', '1e3'); NULL when the text is empty or not a number. -#}
  try_cast(nullif(trim(cast({{ expr }} as string)), '') as double)
{%- endmacro %}


{% macro wag_parse_flag(expr) -%}
  {#- A BOOLEAN from 'true'/'false' text in any case (JSON booleans arrive as that text); else NULL. -#}
  case lower(trim(cast({{ expr }} as string))) when 'true' then true when 'false' then false end
{%- endmacro %}


{% macro wag_is_blank(expr) -%}
  {#- True for NULL or empty/whitespace text: a missing value (no row), not a rejection. -#}
  ({{ expr }} is null or trim(cast({{ expr }} as string)) = '')
{%- endmacro %}


{% macro wag_reject_if(condition, reason, bad_value='null') -%}
  {#- One element of a record's list of reasons: {reason, bad_value} when `condition` holds, else NULL.
      `reason` is fixed text (counted by `wag build`), `bad_value` the SQL of the offending text. -#}
  case when {{ condition }} then {{ wag_struct([('reason', "'" ~ reason ~ "'"), ('bad_value', 'cast(' ~ bad_value ~ ' as string)')]) }} end
{%- endmacro %}


{% macro wag_parse_dmy_date(expr) -%}
  {#- The DATE of day-first text 'DD/MM/YYYY' (PMData googledocs), also 'DD/MM/YYYY HH:MM:SS' and a
      dotted 'DD.MM.YYYY'; an ISO date ('YYYY-MM-DD…', any spelling of wag_parse_timestamp) is read as
      such. NULL when the text is none of these. -#}
  cast(coalesce(
      {{ wag_try_strptime('trim(' ~ expr ~ ')', ['%d/%m/%Y %H:%M:%S', '%d/%m/%Y %H:%M', '%d/%m/%Y', '%d.%m.%Y %H:%M:%S', '%d.%m.%Y']) }},
      {{ wag_parse_timestamp(expr) }}) as date)
{%- endmacro %}


{% macro wag_parse_dmy_timestamp(expr) -%}
  {#- A naive TIMESTAMP from day-first text 'DD/MM/YYYY HH:MM:SS' (or dotted, or ISO); NULL otherwise. -#}
  coalesce(
      {{ wag_try_strptime('trim(' ~ expr ~ ')', ['%d/%m/%Y %H:%M:%S', '%d/%m/%Y %H:%M', '%d.%m.%Y %H:%M:%S']) }},
      {{ wag_parse_timestamp(expr) }})
{%- endmacro %}


{% macro wag_is_missing(expr, missing_words=[]) -%}
  {#- wag_is_blank, or one of `missing_words` (any case) that a file writes for "no value", e.g. the
      literal 'null' of IFH Affect's temperature_delta. -#}
  ({{ wag_is_blank(expr) }}
   {%- if missing_words %} or lower(trim(cast({{ expr }} as string))) in ({% for w in missing_words %}'{{ w | lower }}'{{ ", " if not loop.last }}{% endfor %}){% endif %})
{%- endmacro %}


{#- Checks for raw_rejected: each returns one wag_reject_if element. `label` names the field in the
    reason (the column or JSON key as written); `expr` is the SQL reading it. -#}

{% macro wag_check_number(expr, label, missing_words=[]) -%}
  {#- A field that is present (not blank, not a missing word) but does not cast to a number. -#}
  {{ wag_reject_if('not ' ~ wag_is_missing(expr, missing_words) ~ ' and ' ~ wag_parse_number(expr) ~ ' is null',
                   label ~ ' is not a number', expr) }}
{%- endmacro %}


{% macro wag_parse_as(kind, expr) -%}
  {#- The parsing macro of a kind of date/time field: 'date', 'timestamp', 'utc_timestamp',
      'dmy_date', 'dmy_timestamp'. -#}
  {%- if kind == 'date' -%}{{ wag_parse_date(expr) }}
  {%- elif kind == 'timestamp' -%}{{ wag_parse_timestamp(expr) }}
  {%- elif kind == 'utc_timestamp' -%}{{ wag_parse_utc_timestamp(expr) }}
  {%- elif kind == 'dmy_date' -%}{{ wag_parse_dmy_date(expr) }}
  {%- elif kind == 'dmy_timestamp' -%}{{ wag_parse_dmy_timestamp(expr) }}
  {%- else -%}{{ exceptions.raise_compiler_error('wag_parse_as: unknown kind ' ~ kind) }}
  {%- endif -%}
{%- endmacro %}


{% macro wag_check_day(expr, label, kind, format, required=true) -%}
  {#- A date/time field: empty (when `required`: the record then has no day) or not parseable as
      `kind` (see wag_parse_as); `format` is the expected spelling quoted in the reason. -#}
  {%- set parsed = wag_parse_as(kind, expr) -%}
  {%- if required -%}
  {{ wag_reject_if(wag_is_blank(expr), 'empty ' ~ label) }},
  {% endif -%}
  {{ wag_reject_if('not ' ~ wag_is_blank(expr) ~ ' and ' ~ parsed ~ ' is null',
                   label ~ ' is not a ' ~ ('date' if 'date' in kind else 'timestamp') ~ ' (' ~ format ~ ')', expr) }}
{%- endmacro %}


{% macro wag_rejections(dataset, relation, locator, raw, checks) -%}
  {#- One raw_rejected block: a row per (record of `relation`, failed check). `relation` must have
      `filename` and `n` (the record's position in its file); `locator` and `raw` are SQL on it;
      `checks` a list of wag_reject_if / wag_check_* elements. -#}
select '{{ dataset }}' as dataset, filename, {{ locator }} as locator, left({{ raw }}, 500) as raw,
       {{ wag_nonnull_rows_open() }}
    {{ checks | join(',\n    ') }}
  {{ wag_nonnull_rows_close() }} as rejection
from {{ relation }}
{%- endmacro %}


{% macro wag_fields_text(columns) -%}
  {#- The raw text of a CSV record's fields `columns` as 'name=value, …' (empty fields left out). -#}
  concat_ws(', '{% for c in columns %}, '{{ c }}=' || {{ wag_q(c) }}{% endfor %})
{%- endmacro %}
