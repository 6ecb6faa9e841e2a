-- "What affects X most" (DESIGN.md §6, §8), from one evaluation of wag_edge_weights_as_of (days <=
-- $ref_day only): X's candidate neighbours for the subject ranked two ways, by the as-of global weight
-- W_global (weight_rank) and by the strength of the person's own Spearman correlation |r_s| (own_rank,
-- valid correlations only, NULL otherwise), with their own and population correlations. A row is
-- returned when either rank is <= $limit. Parameters: $subject, $ref_day (DATE), $metric (VARCHAR),
-- $limit (INTEGER) and the weight settings ($min_samples, ... $alpha_ind; RetrievalSettings.weight_params).
with w as (
    select *
    from wag_edge_weights_as_of($subject, $ref_day, [$metric],
        min_samples := $min_samples, min_pop_subjects := $min_pop_subjects, gamma_global := $gamma_global,
        alpha_prior := $alpha_prior, alpha_pop := $alpha_pop, alpha_ind := $alpha_ind)
    where node_x = $metric
),

ranked as (
    select
        *,
        row_number() over (order by w_global desc, node_y) as weight_rank,
        case when r_s_signed is not null then
            row_number() over (partition by r_s_signed is not null order by abs(r_s_signed) desc, node_y)
        end as own_rank
    from w
)

select
    r.node_y,
    r.w_global,
    r.fallback,
    r.w_prior,
    r.r_s_signed,
    r.n_s,
    r.r_s_reason,
    r.r_pop_signed,
    r.n_pop,
    r.n_pop_subjects,
    r.r_pop_reason,
    r.pop_as_of_day,
    r.pop_source,
    r.weight_rank,
    r.own_rank,
    e.relationship
from ranked as r
left join edges as e
    on e.node_a = least(r.node_x, r.node_y) and e.node_b = greatest(r.node_x, r.node_y)
where r.weight_rank <= $limit or r.own_rank <= $limit
order by r.weight_rank
