-- Stage weights on the alpha grid (DESIGN.md §6 "Hyperparameter selection"), from the view
-- eval_alpha_grid (which runs the single HBM macro wag_hbm per grid point). Output ordered so that
-- each (grid_param, log10_alpha, subject_id, node_x) neighbourhood is contiguous. The FROM placeholder is
-- the view's name, or the model compiled by dbt with another grid (`wag eval alpha --grid`).
select grid_param, cast(log10_alpha as double) as log10_alpha, subject_id, node_x,
       p_prior, o_pop, i_ind, mu_pop, mu_s
from {relation}
order by grid_param, log10_alpha, subject_id, node_x, node_y
