{% macro wag_rank_by_weights() -%}
  {#- The rank_by vocabulary of wag_retrieve, said once (issue 25): (name, SQL expression over a candidate
      row) in the order the error message lists them. w_final ranks by default (DESIGN.md §8); the others
      are the ablations of experiments G and L (§6-§7): where o or i is NULL the weight falls back to p,
      and where w_local is NULL to w_global. wag_retrieve builds its argument check, its error message and
      its CASE from this list. (wag_cli/retrieve.py keeps a copy for its own argument check.) -#}
  {{ return([
      ('w_final',  'w_final'),
      ('w_global', 'w_global'),
      ('w_local',  'coalesce(w_local, w_global)'),
      ('p_prior',  'p_prior'),
      ('w_pop',    'coalesce(o_pop, p_prior)'),
      ('w_ind',    'coalesce(i_ind, p_prior)'),
  ]) }}
{%- endmacro %}
