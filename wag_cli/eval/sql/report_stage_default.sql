-- Default subject and primary node for the HBM stage-shift figure (DESIGN.md §6; paper Fig. 6): the
-- (subject, node_x) with the most neighbours whose weight came from the subject's own evidence
-- (fallback 'individual'), ties by subject and node id. Parameters: $subject and $node (NULL = any).
select subject_id, node_x, count(*) filter (where fallback = 'individual') as n_individual, count(*) as n_candidates
from edge_weights
where ($subject is null or subject_id = $subject)
  and ($node is null or node_x = $node)
group by subject_id, node_x
order by n_individual desc, n_candidates desc, subject_id, node_x
limit 1
