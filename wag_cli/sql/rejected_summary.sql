-- Raw records quarantined by the last build (models/staging/raw_rejected.sql), counted per file and reason.
select file, reason, count(*) as n_records, min(locator) as first_locator
from raw_rejected
group by file, reason
order by file, n_records desc, reason
