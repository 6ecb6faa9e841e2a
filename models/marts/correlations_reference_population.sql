-- The reference population of each dataset (DESIGN.md §6 "Small cohorts" rule 1): per dataset T and
-- prior edge, the fixed-effect meta-analysis (weights n - 3 on Fisher z) of the valid full-history
-- pooled correlations of the warehouse's other datasets (dbt var reference_population: auto, a list,
-- or none). edge_weights and wag_edge_weights_as_of use it for a pair whose own dataset has fewer
-- than var min_pop_subjects subjects with paired days (IFH with 2 subjects; a person's own export).
-- The formula is the macro wag_reference_population_select, shared with the as-of macro.
with targets as (
    select distinct dataset from {{ ref('metric_values') }}
)

{{ wag_reference_population_select(ref('correlations_population_snapshots'), 'targets',
                                   var('min_samples'), var('min_pop_subjects'), dispatched_agg=true) }}
