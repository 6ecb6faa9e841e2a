-- A node's prior edges (both directions of the unordered edge table), strongest first. Parameter: $node.
select
    case when node_a = $node then node_b else node_a end as neighbour,
    w_prior,
    confidence,
    relationship
from edges
where node_a = $node or node_b = $node
order by w_prior desc, neighbour
