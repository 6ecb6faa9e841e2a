"""Node matching of model-proposed metric names (DESIGN.md §8 step 1): alias match, embedding
cosine >= delta = 0.85, and rejection below the threshold."""

from __future__ import annotations

from datetime import date

from wag_cli.catalog import load_catalog
from wag_cli.query.embeddings import EMBED_DELTA, embedding_matches
from wag_cli.query.model import parse


class FakeClient:
    """chat_json returns a scripted reply; embed maps chosen texts onto chosen directions."""

    def __init__(self, reply, directions):
        self.reply = reply
        self.directions = directions  # text -> vector; every other text gets its own axis

    def chat_json(self, system, instruction, data, schema, name):
        return dict(self.reply)

    def embed(self, texts):
        out = []
        for i, t in enumerate(texts):
            if t in self.directions:
                out.append(list(self.directions[t]))
            else:
                v = [0.0] * (len(texts) + 3)
                v[3 + i] = 1.0
                out.append(v)
        n = max(len(v) for v in out)
        return [v + [0.0] * (n - len(v)) for v in out]


def test_embedding_match_respects_delta():
    catalog = load_catalog()
    deep = catalog["deep_sleep_duration"].name
    close = [1.0, 0.5, 0.0]      # cosine with [1, 0, 0] = 0.894 >= 0.85
    far = [1.0, 0.9, 0.0]        # cosine = 0.743 < 0.85
    client = FakeClient({}, {deep: [1.0, 0.0, 0.0], "slow-wave sleep amount": close, "dozing": far})
    got = embedding_matches(["slow-wave sleep amount", "dozing"], catalog, client)
    assert got["slow-wave sleep amount"][0] == "deep_sleep_duration"
    assert got["slow-wave sleep amount"][1] >= EMBED_DELTA
    assert "dozing" not in got


def test_model_names_are_resolved_before_validation():
    """Where the offline matcher finds nothing, the model's names are mapped onto catalog ids (alias,
    then cosine >= delta) and the rest dropped (DESIGN.md §8 "QueryParse with a model")."""
    catalog = load_catalog()
    deep = catalog["deep_sleep_duration"].name
    reply = {"metrics": ["Resting Pulse", "slow-wave sleep amount", "moon phase"],
             "category": "Data Retrieval", "openness": 0.2}
    client = FakeClient(reply, {deep: [1.0, 0.0, 0.0], "slow-wave sleep amount": [1.0, 0.4, 0.0]})
    parsed = parse("Was my ticker calm and my slow-wave rest long this week?", date(2020, 1, 20),
                   catalog=catalog, client=client)
    assert parsed.sources["metrics"] == "model"
    assert parsed.metrics == ["resting_heart_rate", "deep_sleep_duration"]
    assert parsed.dropped_metrics == ["moon phase"]
    hows = {m["metric_id"]: m["how"] for m in parsed.matches}
    assert hows["resting_heart_rate"] == "model+alias" and hows["deep_sleep_duration"].startswith("model+embedding")
