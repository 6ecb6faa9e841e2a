{#-
  GLOBEM phone call features -> staging contract (DESIGN.md §2; FORMATS.md §3.2, §5).

  Input : globem/<study>/FeatureData/call.csv (RAPIDS, ~785 columns, one row per pid x date).
          Raw `allday` features phone_calls_rapids_{incoming,outgoing,missed}_count (calls) and
          phone_calls_rapids_{incoming,outgoing}_entropyduration (Shannon entropy, nats, of the
          durations of that day's calls of one type; 0 for a single call).
  Output: one row per (subject_id, day, raw_field); raw_field = 'call.' || RAPIDS feature name, plus
          the derived field 'call.phone_calls_rapids_incoming_plus_outgoing_count'; day = the row's
          date.

  Rules
  * Empty field = missing = no row. A day without any call-log entry has every call feature empty
    (about half the days): no row, not 0. On days with call data RAPIDS writes 0 for a call type
    that did not occur; the three counts are present or absent together in every observed row.
  * incoming_plus_outgoing_count = incoming_count + outgoing_count, written only when both are
    present. Missed calls are not added: a missed call is an unanswered ring, not a conversation
    (FORMATS §5 leaves "+ missed" optional). missed_count is written on its own for reference.
  * RAPIDS has no entropy over all calls; both per-type entropies are written. (The entropy over
    all calls cannot be derived exactly: the stored per-type values do not exactly match
    scipy.stats.entropy of the durations implied by min/max on 2-call days.) The field map picks
    outgoing_entropyduration (calls the participant placed) for entropy_of_call_duration.
  * (pid, date) duplicates across study folders (not observed) are averaged.
-#}
{{ config(materialized='table') }}
{%- set spec = globem_feature_files()['call'] -%}
{%- set prefix = spec.prefix -%}
{{ globem_allday_features('call', prefix, 'call.phone_calls_rapids_', spec.features,
                           derived={'incoming_plus_outgoing_count':
                               wag_parse_number(wag_q(prefix ~ 'incoming_count:allday')) ~ ' + '
                               ~ wag_parse_number(wag_q(prefix ~ 'outgoing_count:allday'))}) }}
