"""Fitbit Takeout zips -> the JSON files the Fitbit staging models read (issue 28, DESIGN.md §2).

Input : <data_dir>/fitbit/<person>/**/*.zip (Google Takeout, e.g. takeout-20240301T000000Z-001.zip).
Output: one row per zip: subject_id 'fitbit:<person>', the zip, status (read, cached, failed), members
        copied and skipped, note.

DuckDB cannot glob inside a zip, so wag_cli.fitbit_takeout copies the members the models read
(Takeout/Fitbit/Global Export Data/<steps|distance|sleep|…>-*.json) into var fitbit_takeout_cache_dir
as fitbit/<person>/<zip name>/<member>, streaming, skipping member names that could leave that
folder, never writing to the data folder. The raw-file macros (macros/raw_files.sql) read the cache
beside data_dir for every fitbit/ glob, so the Takeout models read a zipped export as they read an
unzipped one. The stg_fitbit__* models and raw_rejected depend on this model, so the copy is done
before they are compiled.
"""


def model(dbt, session):
    dbt.config(materialized="table")
    import os
    from pathlib import Path

    from wag_cli.fitbit_takeout import extract_takeout_zips, reports_frame

    # a var whose dbt_project.yml default is itself a template (env_var) reaches a Python model
    # unrendered, so those defaults are applied here the same way (as stg_apple_health__files does)
    data_dir = dbt.config.get("data_dir")
    if "env_var(" in str(data_dir):
        data_dir = os.environ.get("WAG_DATA_DIR", "demo_data")
    cache_dir = dbt.config.get("fitbit_takeout_cache_dir")
    if "env_var(" in str(cache_dir):
        project = os.environ.get("DBT_PROJECT_DIR", os.environ.get("DBT_PROFILES_DIR", "."))
        cache_dir = os.environ.get("WAG_DB", project + "/wag.duckdb") + ".takeout"
    return reports_frame(extract_takeout_zips(Path(data_dir), Path(cache_dir)))
