-- Stored weights per HBM stage (DESIGN.md §6; paper Fig. 8): p_prior, mu_pop, mu_s and w_global of
-- every edge_weights row, or of one subject's rows. Parameter: $subject (NULL = every subject).
-- A stage that was skipped (no observation) carries its prior forward, as stored.
select subject_id, node_x, node_y, p_prior, mu_pop, mu_s, w_global, fallback
from edge_weights
where $subject is null or subject_id = $subject
