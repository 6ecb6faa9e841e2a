-- The warehouse's last day with measured data (every reply of `wag mcp` states it). Profile rows
-- (catalog category 'Demographic') repeat on every day of some exports and do not count, as in
-- subjects.sql; a warehouse with profile rows only keeps their last day.
select coalesce(max(v.day) filter (where c.category is distinct from 'Demographic'), max(v.day)) as last_day
from metric_values as v
left join metric_catalog as c using (metric_id)
