"""Renderers: result objects to text (trec_eval text, tables, Markdown, LaTeX, CSV, JSON, HTML)."""
