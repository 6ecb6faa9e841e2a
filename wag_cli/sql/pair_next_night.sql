-- A day's activity and the sleep that ends the next morning (DESIGN.md §11): Spearman's rho of
-- $activity on day d and $sleep on day d + 1 (sleep is dated by the wake-up day, §2), over the days
-- d <= $ref_day - 1, from the warehouse's wag_pair_spearman macro (the project's one Spearman).
-- Parameters: $subject, $activity, $sleep, $ref_day, $min_samples. One row: n, spearman_rho, null_reason.
select n, spearman_rho, null_reason
from wag_pair_spearman($subject, $activity, $sleep, null, cast($ref_day as date) - 1,
                       min_samples := $min_samples, lag_days := 1)
