"""Question categories and their openness ranges (paper Table 23, DESIGN.md §10): the one
definition, used by the offline parser and the model prompts."""

from __future__ import annotations

#: category -> (lowest, highest) openness eta.
CATEGORY_OPENNESS: dict[str, tuple[float, float]] = {
    "General Knowledge": (0.2, 0.4),
    "Data Retrieval": (0.1, 0.3),
    "Trend Analysis": (0.4, 0.6),
    "Comparative Insight": (0.5, 0.7),
    "Anomaly Detection": (0.6, 0.8),
    "Actionable Advice": (0.3, 0.5),
    "Exploratory Analysis": (0.7, 1.0),
    "Metric Relationships": (0.4, 0.6),
    "Contextual Queries": (0.5, 0.7),
}
