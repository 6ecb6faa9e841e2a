"""Apple Health exports -> Parquet parts, and what was done with each file (issue 28, DESIGN.md §2).

Input : <data_dir>/apple_health/<person>/export.zip (its export.xml member read as a stream) or
        <data_dir>/apple_health/<person>/apple_health_export/export.xml.
Output: one row per Parquet part written (a file with no part, e.g. one that could not be read, has
        one row with part NULL): subject_id 'apple_health:<person>', the export file, status (read,
        failed, no_export), record counts, what happened to the document type declaration (removed:
        never parsed, so the iOS 16 malformed DTD is no error and no entity is ever declared), the
        external entities it declared (never read), entity references skipped, seconds.

The streaming is wag_cli.apple_health (a Python pre-step: XML cannot be read by DuckDB). Parts are
cached under var apple_health_cache_dir by export path, size and modification time, so an unchanged
export is parsed once. Every rule (type mapping, local day, per-source sums, sleep nights) is SQL
in stg_apple_health__quantities / __sleep; stg_apple_health__records reads the parts listed here.
"""


def model(dbt, session):
    dbt.config(materialized="table")
    import os
    from pathlib import Path

    from wag_cli.apple_health import prepare_exports, reports_frame

    # the yml passes the vars; a var whose dbt_project.yml default is itself a template (env_var) reaches
    # a Python model unrendered, so that default is applied here the same way
    data_dir = dbt.config.get("data_dir")
    if "env_var(" in str(data_dir):
        data_dir = os.environ.get("WAG_DATA_DIR", "demo_data")
    cache_dir = dbt.config.get("apple_health_cache_dir")
    if "env_var(" in str(cache_dir):
        cache_dir = os.path.join(os.environ.get("WAG_CACHE_DIR", ".wag_cache"), "apple_health")
    return reports_frame(prepare_exports(Path(data_dir), Path(cache_dir)))
