{#-
  Parsing rules shared by the staging models and the quarantine table raw_rejected (issue 9 item 1).

  A staging model and raw_rejected call the same macro for a field, so a record is either read by
  staging or listed in raw_rejected with its reason — never dropped silently. Known alternative
  spellings and formats are read, not rejected.
-#}

{% macro wag_plausible_days() -%}
  {#- [first, last] plausible calendar day of a record, as 'YYYY-MM-DD' texts (issue 24, DESIGN.md §2):
      var('min_plausible_day') (default 2000-01-01, before any consumer wearable in these datasets) and
      var('max_plausible_day') (default: the build day, i.e. the UTC date dbt started, plus one day, so
      a record stamped today in a time zone ahead of UTC is still read). A record dated outside is
      quarantined with reason implausible_date; it never reaches metric_values or stretches a period. -#}
  {%- set first = var('min_plausible_day', '2000-01-01') | string -%}
  {%- set last = var('max_plausible_day', none) -%}
  {%- if last is none -%}
    {%- set last = (run_started_at + modules.datetime.timedelta(days=1)).strftime('%Y-%m-%d') -%}
  {%- endif -%}
  {{ return([first, last | string]) }}
{%- endmacro %}


{% macro wag_plausible(ts_expr) -%}
  {#- `ts_expr` (a TIMESTAMP, TIMESTAMPTZ or DATE) when its calendar day lies in wag_plausible_days(); else NULL. -#}
  {%- set days = wag_plausible_days() -%}
  case when cast({{ ts_expr }} as date) between cast({{ wag_sql_string(days[0]) }} as date)
                                            and cast({{ wag_sql_string(days[1]) }} as date)
       then {{ ts_expr }} end
{%- endmacro %}


{% macro wag_parse_timestamp(expr, plausible=true) -%}
  {#- A local, naive TIMESTAMP from ISO text in any of the spellings wearable exporters write:
      'YYYY-MM-DD HH:MM:SS', 'YYYY-MM-DDTHH:MM:SS', with or without fractional seconds ('.000'),
      seconds, or a trailing 'Z' / UTC offset (dropped: Fitbit times are local wall clock), or a bare
      'YYYY-MM-DD' (midnight); and Fitbit's account-export (Takeout) spelling 'MM/DD/YY HH:MM:SS',
      month first with a two-digit year (issue 24: the only slashed spelling with a two-digit year
      any source here writes, so it is read month-first; '31/12/19 23:59:00' is then no date).
      NULL when the text is none of these, and (unless plausible=false) when its day is outside
      wag_plausible_days(). -#}
  {%- set parsed = wag_try_strptime("regexp_replace(trim(" ~ expr ~ "), '(\\.[0-9]+)?(Z|[+-][0-9]{2}:?[0-9]{2})?$', '')",
                      ['%Y-%m-%d %H:%M:%S', '%Y-%m-%dT%H:%M:%S', '%Y-%m-%d %H:%M', '%Y-%m-%dT%H:%M', '%Y-%m-%d',
                       '%m/%d/%y %H:%M:%S']) -%}
  {%- if plausible -%}{{ wag_plausible(parsed) }}{%- else -%}{{ parsed }}{%- endif -%}
{%- endmacro %}


{% macro wag_parse_date(expr, plausible=true) -%}
  {#- The calendar DATE of ISO text (any spelling of wag_parse_timestamp); NULL when not a date (or,
      unless plausible=false, not a plausible one). -#}
  cast({{ wag_parse_timestamp(expr, plausible) }} as date)
{%- endmacro %}


{% macro wag_parse_utc_timestamp(expr, plausible=true) -%}
  {#- A TIMESTAMPTZ from ISO text with a zone ('2019-11-16T23:50:57Z', '…+01:00'); NULL otherwise
      (and, unless plausible=false, when its day is outside wag_plausible_days()). -#}
  {%- set parsed = wag_utc_text_to_timestamp('trim(' ~ expr ~ ')') -%}
  {%- if plausible -%}{{ wag_plausible(parsed) }}{%- else -%}{{ parsed }}{%- endif -%}
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


{% macro wag_parse_dmy_date(expr, plausible=true) -%}
  {#- The DATE of day-first text 'DD/MM/YYYY' (PMData googledocs), also 'DD/MM/YYYY HH:MM:SS' and a
      dotted 'DD.MM.YYYY'; an ISO date ('YYYY-MM-DD…', any spelling of wag_parse_timestamp) is read as
      such. NULL when the text is none of these (or, unless plausible=false, not a plausible day). -#}
  {%- set parsed = 'coalesce(' ~ wag_try_strptime('trim(' ~ expr ~ ')', ['%d/%m/%Y %H:%M:%S', '%d/%m/%Y %H:%M', '%d/%m/%Y', '%d.%m.%Y %H:%M:%S', '%d.%m.%Y'])
                   ~ ', ' ~ wag_parse_timestamp(expr, false) ~ ')' -%}
  cast({% if plausible %}{{ wag_plausible(parsed) }}{% else %}{{ parsed }}{% endif %} as date)
{%- endmacro %}


{% macro wag_parse_dmy_timestamp(expr, plausible=true) -%}
  {#- A naive TIMESTAMP from day-first text 'DD/MM/YYYY HH:MM:SS' (or dotted, or ISO); NULL otherwise
      (or, unless plausible=false, outside wag_plausible_days()). -#}
  {%- set parsed = 'coalesce(' ~ wag_try_strptime('trim(' ~ expr ~ ')', ['%d/%m/%Y %H:%M:%S', '%d/%m/%Y %H:%M', '%d.%m.%Y %H:%M:%S'])
                   ~ ', ' ~ wag_parse_timestamp(expr, false) ~ ')' -%}
  {% if plausible %}{{ wag_plausible(parsed) }}{% else %}{{ parsed }}{% endif %}
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


{% macro wag_check_nonnegative(expr, label) -%}
  {#- A number below zero in a field that counts or measures an amount (steps or distance in a minute,
      minutes, RPE): quarantined before the day is summed, so the day keeps its valid records (issue 24). -#}
  {{ wag_reject_if(wag_parse_number(expr) ~ ' < 0', label ~ ' is negative (an amount cannot be)', expr) }}
{%- endmacro %}


{% macro wag_parse_as(kind, expr, plausible=true) -%}
  {#- The parsing macro of a kind of date/time field: 'date', 'timestamp', 'utc_timestamp',
      'dmy_date', 'dmy_timestamp'. -#}
  {%- if kind == 'date' -%}{{ wag_parse_date(expr, plausible) }}
  {%- elif kind == 'timestamp' -%}{{ wag_parse_timestamp(expr, plausible) }}
  {%- elif kind == 'utc_timestamp' -%}{{ wag_parse_utc_timestamp(expr, plausible) }}
  {%- elif kind == 'dmy_date' -%}{{ wag_parse_dmy_date(expr, plausible) }}
  {%- elif kind == 'dmy_timestamp' -%}{{ wag_parse_dmy_timestamp(expr, plausible) }}
  {%- else -%}{{ exceptions.raise_compiler_error('wag_parse_as: unknown kind ' ~ kind) }}
  {%- endif -%}
{%- endmacro %}


{% macro wag_check_plausible(kind, expr, label) -%}
  {#- A date/time field that parses but whose day lies outside wag_plausible_days() (issue 24):
      reason 'implausible_date (<label> outside <first>..<last>)'. -#}
  {%- set days = wag_plausible_days() -%}
  {{ wag_reject_if(wag_parse_as(kind, expr, false) ~ ' is not null and ' ~ wag_parse_as(kind, expr) ~ ' is null',
                   'implausible_date (' ~ label ~ ' outside ' ~ days[0] ~ '..' ~ days[1] ~ ')', expr) }}
{%- endmacro %}


{% macro wag_check_day(expr, label, kind, format, required=true) -%}
  {#- A date/time field: empty (when `required`: the record then has no day), not parseable as
      `kind` (see wag_parse_as; `format` is the expected spelling quoted in the reason), or parseable
      but outside the plausible days (wag_check_plausible). -#}
  {%- set parsed = wag_parse_as(kind, expr, false) -%}
  {%- if required -%}
  {{ wag_reject_if(wag_is_blank(expr), 'empty ' ~ label) }},
  {% endif -%}
  {{ wag_reject_if('not ' ~ wag_is_blank(expr) ~ ' and ' ~ parsed ~ ' is null',
                   label ~ ' is not a ' ~ ('date' if 'date' in kind else 'timestamp') ~ ' (' ~ format ~ ')', expr) }},
  {{ wag_check_plausible(kind, expr, label) }}
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
