"""Names vulture cannot see used: a framework or library reads them by name, or a caller outside annotator/ and tests/.

Read by the lint step (README: ``python -m vulture annotator tests vulture_whitelist.py --min-confidence 60``); never
imported or run. Only true false positives belong here, each under the reason that makes it one; dead code is
deleted instead.
"""

# ruff: noqa
# mypy: ignore-errors

# Alembic reads these attributes and functions of every revision module in annotator/store/migrations/versions/.
down_revision, branch_labels, depends_on, upgrade, downgrade

# SQLAlchemy calls the listeners registered with @event.listens_for (annotator/store/engines.py, store/jobs.py,
# tests/paused_command.py); the DB-API connection's isolation_level is set for the driver to read.
_on_connect, _on_begin, _before_begin
_.isolation_level

# expat calls the handlers assigned to its parser and reads its buffer settings (data_import/xlsx.py,
# lexicon/wordnet_lmf.py).
_.StartElementHandler, _.EndElementHandler, _.CharacterDataHandler
_.StartDoctypeDeclHandler, _.EntityDeclHandler, _.SkippedEntityHandler, _.ExternalEntityRefHandler
_.buffer_text, _.buffer_size

# openpyxl reads the cell and sheet attributes the spreadsheet export sets (data_export/spreadsheet.py).
_.quotePrefix, _.font, _.fill, _.alignment, _.freeze_panes

# urllib3 reads the connection class of a pool and the pool classes of a manager (lexicon/babelnet_transport.py).
ConnectionCls
_.pool_classes_by_scheme

# wn's configuration, set before use (lexicon/wordnet_store.py, tests/test_wordnet_lexicon.py).
_.data_directory, _.allow_multithreading

# jieba's tokenizer attributes, set before it loads its dictionary (tests/test_dictionary_cache.py).
_.tmp_dir, _.initialized

# A field of a typed row, read by unpacking (data_export/selection.py DiscardedItemLanguage).
item_exported

# The text stream protocol: without it, writelines would reach the raw stream past the escaping (terminal.py).
writelines

# A method benchmarks/ call (bench_suggestions.py, bench_open_data.py) to sample the English wordnet.
english_senses

# pytest reads these by name: module marks, hooks, fixtures (requested by parameter name or autouse).
pytestmark, pytest_configure, pytest_generate_tests
postgres_database, scratch_database, fake_babelnet, collector, put_first_kind, pg_url, _private_cache
_no_outside_database

# A DB-API event listener's signature (tests/test_page_reads.py): SQLAlchemy passes every argument by position.
executemany

# http.server calls the request handler's hooks and reads the server's settings (tests/fake_babelnet.py).
do_GET, log_message
_.daemon_threads, _.handle_error

# Streamlit's AppTest reads a widget's state and its protobuf fields (tests/app_helpers.py); a BackMsg field the
# server reads (tests/test_e2e_session_attacks.py).
_widget_state
_.json_trigger_value, _.clear_cache

# Fields of the work area's TypedDicts (app/curate_area/protocol.py) that only area.js reads in the browser.
status_label, senses_title, heading, when, may_post

# Columns of a stored inspection row, read into the dataclass by name (evaluation/inspection.py).
marked_by, marked_at

# A report method benchmarks/bench_mucow.py prints (false BADs by cause).
causes
