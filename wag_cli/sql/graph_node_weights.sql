-- Every weight column of a node's candidate edges for one subject (DESIGN.md §6). Parameters: $node, $subject.
select *
from edge_weights
where node_x = $node and subject_id = $subject
order by w_global desc, node_y
