-- DESIGN.md §6: the fallback label must agree with which correlations exist.
--   individual               -> r_s valid and w_global = mu_s (prior variance from the population stage)
--   individual_no_population -> r_s valid, no population evidence in C: mu_pop = p_prior, w_global = mu_s
--   population               -> r_s invalid, r_pop valid and w_global = mu_pop
--   prior                    -> w_global = p_prior, and (both invalid, or q_prior undefined)
select *
from {{ ref('edge_weights') }}
where not (
       (fallback = 'individual' and r_s is not null and q_prior is not null and w_global = mu_s)
    or (fallback = 'individual_no_population' and r_s is not null and v_pop is null and q_prior is not null
        and mu_pop = p_prior and w_global = mu_s)
    or (fallback = 'population' and r_s is null and r_pop is not null and q_prior is not null and w_global = mu_pop)
    or (fallback = 'prior' and w_global = p_prior and ((r_s is null and r_pop is null) or q_prior is null))
)
