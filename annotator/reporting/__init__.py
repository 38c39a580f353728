"""The per-system evaluation report (DiBiMT Tables 3–6, appendix D): tables, charts, HTML/Markdown/LaTeX writers."""
