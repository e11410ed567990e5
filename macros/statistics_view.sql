{#- The package's statistics views (models/), created again only when their definition changed.
    dbt's view materialization sends `create or replace view` in every build: a metastore write and
    Spark's analysis of the view's query, ten times per `dbt build` of a project that installs the
    package, though the views change only with the package, its vars or its storage. Each view keeps
    a fingerprint of its DDL and the storage's version in a table property; a build whose
    fingerprint matches leaves the view as it is. `--full-refresh` creates it again
    (docs/decisions/statistics-views-created-once.md). -#}
{% materialization statistics_view, default %}
  {%- set target_relation = this.incorporate(type='view') -%}
  {%- set existing = load_cached_relation(this) -%}
  {%- set was_view, full_refresh = existing is not none and existing.is_view, should_full_refresh() -%}
  {{ run_hooks(pre_hooks) }}
  {%- if existing is not none and existing.is_table -%}
    {{ handle_existing_table(full_refresh, existing) }}
  {%- endif -%}
  {%- set create_sql = get_create_view_as_sql(target_relation, sql) -%}
  {%- set fingerprint = local_md5(create_sql ~ dbt_analyze._storage_version()) -%}
  {%- if was_view and not full_refresh and dbt_analyze._view_fingerprint(target_relation) == fingerprint -%}
    {{ log('dbt_analyze: ' ~ target_relation ~ ' unchanged, kept as it is') }}
    {%- do store_result('main', response='OK (unchanged)') -%}
  {%- else -%}
    {%- call statement('main') -%}
      {{ create_sql }}
    {%- endcall -%}
    {%- call statement('fingerprint') -%}
      alter view {{ target_relation }} set tblproperties ({{ dbt_analyze._quote_literal(dbt_analyze._view_fingerprint_key()) }}
                                                          = {{ dbt_analyze._quote_literal(fingerprint) }})
    {%- endcall -%}
  {%- endif -%}
  {%- do apply_grants(target_relation, config.get('grants'),
                      should_revoke=should_revoke(was_view, full_refresh_mode=True)) -%}
  {{ run_hooks(post_hooks) }}
  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}

{% macro _view_fingerprint_key() %}{{ return('dbt_analyze.view_fingerprint') }}{% endmacro %}

{#- The fingerprint a statistics view was created with (Spark answers a property it lacks with a
    sentence, which matches no fingerprint). -#}
{% macro _view_fingerprint(relation) %}
  {%- set found = run_query('show tblproperties ' ~ relation ~ ' ('
                            ~ dbt_analyze._quote_literal(dbt_analyze._view_fingerprint_key()) ~ ')') -%}
  {{ return(found.rows[0][-1] if found.rows | length > 0 else '') }}
{% endmacro %}
