-- Remove one judge's stored rankings of some (query, experiment) pairs before they are judged again
-- (`wag eval judge --redo`). Parameters: $judge, $experiments (VARCHAR[]), $query_ids (VARCHAR[]).
delete from eval_judgements
where judge = $judge
  and list_contains($experiments, experiment)
  and list_contains($query_ids, query_id)
