-- Prior knowledge-graph edges (DESIGN.md §9): one row per unordered pair (node_a < node_b) with
-- prior strength w_prior in [0.1, 1.0]; pairs judged unrelated (< 0.1) have no edge.
with prior_edges as (
    select * from {{ ref('prior_edges') }}
)

select
    least(node_a, node_b)       as node_a,
    greatest(node_a, node_b)    as node_b,
    cast(w_prior as double)     as w_prior,
    confidence,
    relationship
from prior_edges
where w_prior >= 0.1
