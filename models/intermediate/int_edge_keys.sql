-- One integer key per prior edge (DESIGN.md §5, §9): the 35 M-row paired table of a 500-subject
-- population and the Spearman windows over it carry this 4-byte key instead of two metric names.
-- Grain: one row per edge of `edges` (node_a < node_b).
with edges as (
    select * from {{ ref('edges') }}
)

select
    cast(row_number() over (order by node_a, node_b) as integer) as edge_key,
    node_a,
    node_b
from edges
