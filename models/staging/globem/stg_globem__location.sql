{#-
  GLOBEM phone location features -> staging contract (DESIGN.md §2; FORMATS.md §3.2, §5).

  Input : globem/<study>/FeatureData/location.csv (RAPIDS, ~1109 columns, one row per pid x date).
          Raw `allday` features:
            phone_locations_doryab_timeathome      minutes at home
            phone_locations_doryab_radiusgyration  radius of gyration, m
            phone_locations_doryab_totaldistance   distance travelled by the phone (GPS), m
            phone_locations_barnett_maxhomedist    maximum distance from home, m
            phone_locations_barnett_circdnrtn      circadian routine, 0-1
            phone_locations_barnett_hometime       minutes at home (Barnett)   } alternatives, not mapped
            phone_locations_barnett_rog            radius of gyration, m       } by default (see the
            phone_locations_barnett_disttravelled  distance travelled, m       } field map)
  Output: one row per (subject_id, day, raw_field); raw_field = 'location.' || RAPIDS feature
          name; day = the row's date.

  Rules
  * Empty field = missing = no row (no phone location data that day).
  * Zeros are real here (a day spent at one place has radius of gyration 0), so they are kept.
  * totaldistance is phone-GPS distance of all movement (walking, driving), whereas the Fitbit
    datasets' distance_traveled is walked distance; FORMATS §5 maps it to distance_traveled all the
    same, and so does the field map (its note says so).
  * (pid, date) duplicates across study folders (not observed) are averaged.
-#}
{{ config(materialized='table') }}
{%- set spec = globem_feature_files()['location'] %}
{{ globem_allday_features('location', spec.prefix, 'location.phone_locations_', spec.features) }}
