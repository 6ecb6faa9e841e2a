"""Graph construction (DESIGN.md §9; paper Algorithm 1) and graph tools.

* :mod:`.seeds` — the seed format (metric_catalog, prior_edges, prior_unrelated_pairs): read, write, diff;
* :mod:`.merge` — Merge/UpdateNode: a metric that matches an existing node updates it;
* :mod:`.nodegen` / :mod:`.edgegen` — NodeGen and EdgeGen requests (batched, jsonschema-validated,
  cached by :class:`wag_cli.llm.ReplyCache`);
* :mod:`.build` — Algorithm 1 over a list of input metrics, with progress and token counts;
* :mod:`.propose` — offline node proposals for unmapped wide columns;
* :mod:`.plot` — PNG pictures of the graph or a retrieved subgraph;
* :mod:`.commands` — the ``wag graph build/diff/add-metrics/plot`` and ``wag model check`` commands.
"""
