"""The Stanza analyser, for real: tiny Italian models trained here with Stanza's own trainers, then loaded by
``stanza.Pipeline(download_method=None, *_model_path=...)`` through our analyser.

The trainers are the modules ``python -m stanza.models.tokenizer`` (etc.) runs; their ``main(argv)`` is called in
this process with the same command-line flags, which saves four interpreter + torch start-ups (~15 s on 2 cores).
Torch is held to one thread while training: the models are tiny and extra threads only contend.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from annotator.analysis.base import AnalyserUnavailable
from annotator.analysis.stanza_analyser import StanzaAnalyser, download_command
from annotator.cli import main
from annotator.domain.matching import DatasetCandidate, Outcome, Step, compile_candidates, match_translation
from annotator.evaluation.inputs import dataset_from_records, parse_translations
from annotator.evaluation.run import evaluate

pytestmark = pytest.mark.stanza

# Six Italian sentences in CoNLL-U; "della" and "nella" are multi-word tokens (di + la, in + la).
CONLLU = """\
# text = Il colore della casa è bello.
1	Il	il	DET	_	_	2	det	_	_
2	colore	colore	NOUN	_	_	0	root	_	_
3-4	della	_	_	_	_	_	_	_	_
3	di	di	ADP	_	_	5	case	_	_
4	la	il	DET	_	_	5	det	_	_
5	casa	casa	NOUN	_	_	2	nmod	_	_
6	è	essere	AUX	_	_	7	cop	_	_
7	bello	bello	ADJ	_	_	2	amod	_	SpaceAfter=No
8	.	.	PUNCT	_	_	2	punct	_	_

# text = Beve un goccio di vino.
1	Beve	bere	VERB	_	_	0	root	_	_
2	un	uno	DET	_	_	3	det	_	_
3	goccio	goccio	NOUN	_	_	1	obj	_	_
4	di	di	ADP	_	_	5	case	_	_
5	vino	vino	NOUN	_	_	3	nmod	_	SpaceAfter=No
6	.	.	PUNCT	_	_	1	punct	_	_

# text = I bambini giocano nella casa.
1	I	il	DET	_	_	2	det	_	_
2	bambini	bambino	NOUN	_	_	3	nsubj	_	_
3	giocano	giocare	VERB	_	_	0	root	_	_
4-5	nella	_	_	_	_	_	_	_	_
4	in	in	ADP	_	_	6	case	_	_
5	la	il	DET	_	_	6	det	_	_
6	casa	casa	NOUN	_	_	3	obl	_	SpaceAfter=No
7	.	.	PUNCT	_	_	3	punct	_	_

# text = Versa un goccio della grappa.
1	Versa	versare	VERB	_	_	0	root	_	_
2	un	uno	DET	_	_	3	det	_	_
3	goccio	goccio	NOUN	_	_	1	obj	_	_
4-5	della	_	_	_	_	_	_	_	_
4	di	di	ADP	_	_	6	case	_	_
5	la	il	DET	_	_	6	det	_	_
6	grappa	grappa	NOUN	_	_	3	nmod	_	SpaceAfter=No
7	.	.	PUNCT	_	_	1	punct	_	_

# text = Il cacciatore spara due colpi.
1	Il	il	DET	_	_	2	det	_	_
2	cacciatore	cacciatore	NOUN	_	_	3	nsubj	_	_
3	spara	sparare	VERB	_	_	0	root	_	_
4	due	due	NUM	_	_	5	nummod	_	_
5	colpi	colpo	NOUN	_	_	3	obj	_	SpaceAfter=No
6	.	.	PUNCT	_	_	3	punct	_	_

# text = Le ragazze bevono i succhi.
1	Le	il	DET	_	_	2	det	_	_
2	ragazze	ragazza	NOUN	_	_	3	nsubj	_	_
3	bevono	bere	VERB	_	_	0	root	_	_
4	i	il	DET	_	_	5	det	_	_
5	succhi	succo	NOUN	_	_	3	obj	_	SpaceAfter=No
6	.	.	PUNCT	_	_	3	punct	_	_

"""
SENTENCES = [line[len("# text = ") :] for line in CONLLU.splitlines() if line.startswith("# text = ")]


def flags(*switches: str, **options: object) -> list[str]:
    """Command-line flags as the trainers parse them: ``flags("cpu", lang="it")`` → ``--cpu --lang it``."""
    return [f"--{name}" for name in switches] + [part for k, v in options.items() for part in (f"--{k}", str(v))]


@pytest.fixture(scope="module")
def it_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Train tokenizer (with MWT), dictionary MWT expander, tagger and dictionary lemmatizer: a few seconds."""
    import torch
    from stanza.models import lemmatizer, mwt_expander, tagger, tokenizer
    from stanza.utils.datasets import prepare_tokenizer_data

    folder = tmp_path_factory.mktemp("stanza-it")
    conllu, text = folder / "it_test.conllu", folder / "it_test.txt"
    conllu.write_text(CONLLU, encoding="utf-8")
    text.write_text("\n\n".join(SENTENCES) + "\n", encoding="utf-8")
    labels, mwts = folder / "it_test.toklabels", folder / "it_test-mwt.json"
    prepare_tokenizer_data.main([str(text), str(conllu), "-o", str(labels), "-m", str(mwts)])
    models = folder / "models"
    common = flags("cpu", mode="train", shorthand="it_test", save_dir=models)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        # python -m stanza.models.tokenizer
        tokenizer.main(
            [
                *common,
                *flags(lang="it", save_name="tokenize.pt", txt_file=text, label_file=labels, mwt_json_file=mwts),
                *flags(dev_txt_file=text, dev_label_file=labels, dev_conll_gold=conllu),
                *flags(
                    conll_file=folder / "tokenize_dev.conllu", steps=150, eval_steps=50, batch_size=8, max_seqlen=50
                ),
            ]
        )
        # python -m stanza.models.mwt_expander --dict_only
        mwt_expander.main(
            [
                *common,
                *flags("dict_only", lang="it", save_name="mwt.pt"),
                *flags(train_file=conllu, eval_file=conllu, gold_file=conllu),
            ]
        )
        # python -m stanza.models.tagger --no_pretrain (small dimensions, high learning rate: it memorises)
        tagger.main(
            [
                *common,
                *flags("no_pretrain", lang="it", save_name="pos.pt", train_file=conllu, eval_file=conllu),
                *flags(output_file=folder / "pos.conllu", max_steps=150, eval_interval=50, batch_size=50, lr=0.02),
                *flags(hidden_dim=32, char_hidden_dim=32, deep_biaff_hidden_dim=32, composite_deep_biaff_hidden_dim=16),
                *flags(word_emb_dim=16, char_emb_dim=16, tag_emb_dim=8, transformed_dim=16),
            ]
        )
        # python -m stanza.models.lemmatizer --dict_only
        lemmatizer.main([*common, *flags("dict_only", save_name="lemma.pt", train_file=conllu, eval_file=conllu)])
    finally:
        torch.set_num_threads(threads)
    paths = {name: str(models / f"{name}.pt") for name in ("tokenize", "mwt", "pos", "lemma")}
    for path in paths.values():
        assert Path(path).is_file(), path
    return paths


@pytest.fixture(scope="module")
def analyser(it_models: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> StanzaAnalyser:
    # an empty model folder: the explicit model paths must be enough (no resources.json, no download)
    return StanzaAnalyser(model_dir=tmp_path_factory.mktemp("no-resources"), model_paths={"IT": it_models})


def test_mwt_expands_della_into_di_la(analyser: StanzaAnalyser):
    (analysis,) = analyser.analyse(["Il colore della casa è bello."], "IT")
    assert analysis.tokens == ("Il", "colore", "della", "casa", "è", "bello", ".")
    assert analysis.words == ("Il", "colore", "di", "la", "casa", "è", "bello", ".")
    della = analysis.tokens.index("della")
    assert [w for w, t in zip(analysis.words, analysis.word_token, strict=True) if t == della] == ["di", "la"]
    assert analysis.lemmas[2:4] == ("di", "il")
    assert analysis.upos[2:5] == ("ADP", "DET", "NOUN")
    assert analysis.text[slice(*analysis.token_spans[della])] == "della"


def test_batch_keeps_order_spans_and_tags(analyser: StanzaAnalyser):
    texts = [SENTENCES[4], SENTENCES[3], SENTENCES[5]]
    analyses = analyser.analyse(texts, "IT")
    assert [a.text for a in analyses] == texts
    for analysis in analyses:
        assert all(
            analysis.text[start:end] == token
            for token, (start, end) in zip(analysis.tokens, analysis.token_spans, strict=True)
        )
        assert all(tag is not None for tag in analysis.upos)
    assert analyses[0].lemmas[2] == "sparare" and analyses[0].upos[2] == "VERB"
    assert analyses[2].lemmas[1] == "ragazza"  # plural → lemma


def test_matching_through_stanza_analysis(analyser: StanzaAnalyser):
    def classify(text: str, good: list[str], bad: list[str]):
        entries = [DatasetCandidate(t, "good") for t in good] + [DatasetCandidate(t, "bad") for t in bad]
        patterns = compile_candidates(entries, lambda segments: analyser.analyse(segments, "IT"))
        return match_translation(analyser.analyse([text], "IT")[0], patterns)

    # the wildcard spans the article hidden in "della" (words: di la)
    result = classify("Versa un goccio della grappa.", ["di * grappa"], ["sparo"])
    assert result.outcome == Outcome.GOOD and result.step == Step.LEMMA
    # cross-PoS with real tags: "spara" is a VERB, "colpi" a NOUN
    assert classify("Il cacciatore spara due colpi.", [], ["[sparare]_VERB"]).outcome == Outcome.BAD
    assert classify("Il cacciatore spara due colpi.", ["[colpo]_VERB"], []).outcome == Outcome.MISS
    assert classify("Il cacciatore spara due colpi.", ["colpo"], []).outcome == Outcome.GOOD


def test_evaluation_service_runs_on_stanza(analyser: StanzaAnalyser):
    record = {
        "id": "goccio",
        "sentence": "He poured a drop of grappa.",
        "target": {"text": "drop", "start": 12, "end": 16, "lemma": "drop", "pos": "NOUN"},
        "synset": "bn:drop",
        "polysemy_degree": 3,
        "sense_rank": 2,
        "senses": [{"synset": "bn:fall", "rank": 1}, {"synset": "bn:drop", "rank": 2}],
        "gloss": "",
        "source": "test",
        "languages": {
            "IT": {"good": [{"text": "goccio", "pos": None, "origin": "lexicon", "synsets": ["bn:drop"]}], "bad": []}
        },
    }
    dataset = dataset_from_records([record])
    tsv = "id\tlang\tsystem\ttranslation\ngoccio\tIT\tm1\tVersa un goccio della grappa.\ngoccio\tIT\tm2\t\n"
    result = evaluate(dataset, parse_translations(tsv, dataset, "mt.tsv"), analyser)
    assert result.analyser == "stanza"
    assert [r.match.outcome for r in result.results] == ["GOOD", "MISS"]
    assert result.results[0].analysis.words[3:5] == ("di", "la")


def model_folder(models: dict[str, str], root: Path, package: str = "tiny") -> Path:
    """Lay trained models out as ``stanza.download`` does: ``resources.json`` + ``it/<processor>/<package>.pt``.

    The model-folder route builds ``Pipeline(lang="it", dir=root, processors="tokenize,pos,lemma")``: Stanza maps
    each processor's ``default`` package through ``resources["it"]["packages"]["default"]``, adds ``mwt`` because
    that package lists it, and loads ``root/it/<processor>/<package>.pt``.
    """
    processors = ("tokenize", "mwt", "pos", "lemma")
    resources: dict[str, object] = {
        "it": {
            "lang_name": "Italian",
            "packages": {"default": {name: package for name in processors}},
            **{name: {package: {}} for name in processors},
        }
    }
    for name in processors:
        target = root / "it" / name / f"{package}.pt"
        target.parent.mkdir(parents=True)
        shutil.copyfile(models[name], target)
    (root / "resources.json").write_text(json.dumps(resources), encoding="utf-8")
    return root


def test_cli_runs_stanza_from_a_model_folder(it_models: dict[str, str], tmp_path: Path, capsys):
    """``--stanza-models DIR``, the route the command line and the Evaluate page take, with real (tiny) models."""
    models = model_folder(it_models, tmp_path / "stanza_resources")
    record = {
        "id": "goccio",
        "sentence": "He poured a drop of the grappa.",
        "target": {"text": "drop", "start": 12, "end": 16, "lemma": "drop", "pos": "NOUN"},
        "synset": "bn:drop",
        "polysemy_degree": 2,
        "sense_rank": 2,
        "senses": [{"synset": "bn:fall", "rank": 1}, {"synset": "bn:drop", "rank": 2}],
        # "di la grappa" is in neither the tokens ("della grappa") nor the text: only the MWT expansion matches it
        "gloss": "",
        "source": "test",
        "languages": {
            "IT": {
                "good": [{"text": "di la grappa", "pos": None, "origin": "lexicon", "synsets": ["bn:drop"]}],
                "bad": [],
            }
        },
    }
    dataset = tmp_path / "dataset.jsonl"
    dataset.write_text(json.dumps(record) + "\n", encoding="utf-8")
    translations = tmp_path / "mt.tsv"
    rows = [
        "id\tlang\tsystem\ttranslation",
        "goccio\tIT\tm1\tVersa un goccio della grappa.",
        "goccio\tIT\tm2\tBeve un goccio di vino.",
    ]
    translations.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    argv = ["evaluate", str(dataset), str(translations), "--analyser", "stanza", "--stanza-models", str(models)]
    assert main([*argv, "--out", str(out)]) == 0, capsys.readouterr().err
    assert "2 translations: 1 GOOD, 0 BAD, 1 MISS (analyser: stanza)" in capsys.readouterr().out
    first, second = (json.loads(line) for line in (out / "analysed.jsonl").read_text(encoding="utf-8").splitlines())
    assert first["analysis"]["tokens"][3] == "della" and first["analysis"]["words"][3:5] == ["di", "la"]
    assert (first["result"], first["omega"], first["step"]) == ("GOOD", "di la grappa", "lemma")
    assert first["translation"][slice(*first["span"])] == "della grappa"
    assert second["result"] == "MISS"
    assert json.loads((out / "metrics.json").read_text(encoding="utf-8"))["analyser"] == "stanza"


def test_missing_models_message_has_the_download_command(tmp_path: Path):
    with pytest.raises(AnalyserUnavailable) as caught:
        StanzaAnalyser(model_dir=tmp_path).pipeline("IT")
    message = str(caught.value)
    assert "python -c \"import stanza; stanza.download('it'" in message
    assert str(tmp_path) in message and "no resources.json" in message

    (tmp_path / "resources.json").write_text(json.dumps({"it": {"lang_name": "Italian"}}), encoding="utf-8")
    with pytest.raises(AnalyserUnavailable, match=r"no folder it/"):
        StanzaAnalyser(model_dir=tmp_path).pipeline("IT")


def test_default_download_command_is_the_plain_one():
    assert download_command("IT") == "python -c \"import stanza; stanza.download('it')\""


def test_missing_explicit_model_file_is_named(tmp_path: Path):
    missing = tmp_path / "nope.pt"
    with pytest.raises(AnalyserUnavailable, match="tokenize model for IT not found"):
        StanzaAnalyser(model_dir=tmp_path, model_paths={"IT": {"tokenize": missing}}).pipeline("IT")


def test_a_processor_whose_requirements_are_not_loaded_is_named(it_models: dict[str, str], tmp_path: Path):
    """Stanza refuses a pipeline whose processor needs one that is not in it (a lemmatizer told to use the tags
    needs the tagger): the analyser names it instead of letting Stanza's own exception through."""
    from stanza.pipeline.core import PipelineRequirementsException

    untagged = {name: path for name, path in it_models.items() if name != "pos"}
    analyser = StanzaAnalyser(model_dir=tmp_path, model_paths={"IT": untagged}, pipeline_options={"lemma_pos": True})
    with pytest.raises(AnalyserUnavailable, match=r"(?s)Stanza models for IT.*lemma.*pos") as caught:
        analyser.pipeline("IT")
    assert isinstance(caught.value.__cause__, PipelineRequirementsException)


def test_cli_reports_missing_stanza_models_with_exit_code_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    record = {
        "id": "x",
        "sentence": "s",
        "target": {"text": "s", "start": 0, "end": 1, "lemma": "s", "pos": "NOUN"},
        "synset": "bn:x",
        "polysemy_degree": 3,
        "sense_rank": 1,
        "senses": [{"synset": "bn:x", "rank": 1}],
        "gloss": "",
        "source": "test",
        "languages": {"IT": {"good": [{"text": "goccio", "pos": None, "origin": "lexicon", "synsets": []}], "bad": []}},
    }
    dataset = tmp_path / "dataset.jsonl"
    dataset.write_text(json.dumps(record) + "\n", encoding="utf-8")
    translations = tmp_path / "mt.tsv"
    translations.write_text("id\tlang\tsystem\ttranslation\nx\tIT\tm\tUn goccio.\n", encoding="utf-8")
    models = tmp_path / "models"
    models.mkdir()
    argv = ["evaluate", str(dataset), str(translations), "--analyser", "stanza", "--stanza-models", str(models)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "stanza.download('it'" in err and str(models) in err
    assert not (tmp_path / "mt-evaluation" / "analysed.jsonl").exists()
