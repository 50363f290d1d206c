"""The translatable terms of the library, listed from the tables: the source of the
gettext template (``scripts/make_catalog_template.py``) and of the glossary pages."""
