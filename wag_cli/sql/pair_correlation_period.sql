-- A pair's Spearman correlation over the period the question names (DESIGN.md §5, §8 "Periods"),
-- from the warehouse's wag_pair_spearman table macro (the project's one Spearman definition).
-- Parameters: $subject, $metric_x, $metric_y, $start (DATE, NULL = from the first day), $end (DATE),
-- $min_samples. One row: n, spearman_rho (signed, NULL when not valid), null_reason.
select n, spearman_rho, null_reason
from wag_pair_spearman($subject, $metric_x, $metric_y, $start, $end, min_samples := $min_samples)
