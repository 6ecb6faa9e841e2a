-- Stored HBM stages of one subject's primary node (DESIGN.md §6; paper Fig. 6): per neighbour y the
-- prior p_prior, the population posterior mu_pop and the individual posterior mu_s, read from
-- edge_weights (no recomputation). Parameters: $subject, $node. Largest w_global first.
select node_y, p_prior, mu_pop, mu_s, w_global, fallback, r_s_signed, n_s, r_pop_signed, n_pop
from edge_weights
where subject_id = $subject and node_x = $node
order by w_global desc, node_y
