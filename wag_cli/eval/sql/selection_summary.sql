-- Exp-G / Exp-L query selection per experiment and dataset (DESIGN.md §10): candidates examined,
-- qualified (pairwise distinct neighbour sets) and selected (balanced over datasets).
select
    experiment,
    dataset,
    count(*)                            as candidates,
    count(*) filter (where qualified)   as qualified,
    count(*) filter (where selected)    as selected
from eval_selection
group by experiment, dataset
order by experiment, dataset
