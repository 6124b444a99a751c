"""`ragchain ask QUESTION|-`: parse, call the answer workflow (answer/workflow.py), render."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Optional

import typer

from .common import (EngineOpt, RayAddressOpt, ConfigOpt, DepthOpt, ExpandOpt, FusionOpt, IndexOpt, JsonOpt, KOpt, LatestOpt, LlmModelOpt,
                     LlmTimeoutOpt, NCtxOpt, NormOpt,
                     RecencyOpt, RecencyWeightOpt, RerankDepthOpt, RerankerModelOpt, RerankInstructionOpt, RerankOpt,
                     RetrieversOpt, RrfKOpt, SinceOpt, SourceOpt, SpellingOpt, UntilOpt, VersionsOpt, WeightsOpt,
                     default,
                     require_text, search_options, settings_from, settle)
from ..answer.versions import bears_on
from ..snippets import clipped
from .output import Output, error, exit_code, progress, shown, stderr, stdin_lines


def ask_command(
    question: Annotated[str, typer.Argument(metavar="QUESTION", help="The question, or - to read one question a line from stdin")],
    index: IndexOpt = None, as_json: JsonOpt = None, config: ConfigOpt = None,
    retrievers: RetrieversOpt = None, fusion: FusionOpt = None, k: KOpt = None, depth: DepthOpt = None,
    rrf_k: RrfKOpt = None, norm: NormOpt = None, weights: WeightsOpt = None,
    rerank: RerankOpt = None, rerank_depth: RerankDepthOpt = None, reranker_model: RerankerModelOpt = None,
    rerank_instruction: RerankInstructionOpt = None,
    since: SinceOpt = None, until: UntilOpt = None, source: SourceOpt = None,
    recency: RecencyOpt = None, recency_weight: RecencyWeightOpt = None, expand: ExpandOpt = None,
    llm: Annotated[Optional[str], typer.Option("--llm", metavar="NAME|GGUF|URL", help="Catalogue name, path to a GGUF "
                                               "file, or an OpenAI-compatible server's URL (http://127.0.0.1:8080/v1)")] = None,
    llm_model: LlmModelOpt = None, llm_timeout: LlmTimeoutOpt = None,
    n_ctx: NCtxOpt = None,
    max_tokens: Annotated[Optional[int], typer.Option("--max-tokens", metavar="N", help=f"Longest answer in tokens "
                                                      f"{default('max_tokens')}")] = None,
    context_tokens: Annotated[Optional[int], typer.Option(
        "--context-tokens", metavar="N", help="Passage tokens the model reads: the best sentences of the top passages "
        f"{default('context_tokens')}")] = None,
    passages: Annotated[Optional[int], typer.Option("--passages", metavar="N", help="Top hits whose sentences compete "
                                                    f"for the context {default('passages')}")] = None,
    focus_tokens: Annotated[Optional[int], typer.Option(
        "--focus-tokens", metavar="N", help="Passage tokens of the second reading of an answer not drawn from the "
        f"sentence that best matches the question (0: no second reading) {default('focus_tokens')}")] = None,
    abstain: Annotated[Optional[bool], typer.Option("--abstain/--no-abstain", help="Say the documents do not say when "
                                                    f"the evidence is weak, or always answer {default('abstain')}")] = None,
    no_generate: Annotated[bool, typer.Option("--no-generate", help="Print the retrieved context only")] = False,
    latest: LatestOpt = None, spelling: SpellingOpt = None, versions: VersionsOpt = None,
    engine: EngineOpt = None, ray_address: RayAddressOpt = None,
) -> None:
    """Answer a question from the index with the local model, with numbered citations."""
    require_text(question, "question")
    with _working("opening the index ...") as say:  # the answer model loads later, only for a question it must read
        from ..answer.assemble import open_workflow
        from ..answer.workflow import AskOptions

        settings = settings_from(config, index=index, retrievers=retrievers, fusion=fusion, k=k, depth=depth,
                                 rrf_k=rrf_k, norm=norm, weights=weights, rerank=rerank, rerank_depth=rerank_depth,
                                 reranker_model=reranker_model, rerank_instruction=rerank_instruction,
                                 llm=llm, llm_model=llm_model, llm_timeout=llm_timeout, n_ctx=n_ctx, expand=expand, latest=latest, spelling=spelling,
                                 max_tokens=max_tokens, context_tokens=context_tokens, passages=passages,
                                 focus_tokens=focus_tokens, abstain=abstain, versions=versions,
                                 engine=engine, ray_address=ray_address)
        search = search_options(settings, since, until, source, recency, recency_weight)
        options = AskOptions(**settings.ask_fields(), generate=not no_generate)
        out = Output(as_json)
        with open_workflow(settings, options, search, on_progress=say) as workflow:
            settle(workflow)
            if question == "-":
                return _batch(workflow, out, say)
            payload = workflow.ask(question, on_progress=say)
    out.data(payload, lambda console: render(console, payload))  # once the spinner is gone


@contextmanager
def _working(first: str) -> Iterator[Callable[[str], None]]:
    """On a terminal, a spinner with the elapsed time and the current step while the model is
    assembled, loaded and answers; each step's note also stays as a line. Silent in pipelines."""
    if not stderr.is_terminal:
        yield progress
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    # redirect_stdout=False: rich would otherwise route what is written to stdout (the JSONL of
    # `ask -`) through the spinner's console, onto the terminal instead of into `> answers.jsonl`
    with Progress(*columns, console=stderr, transient=True, redirect_stdout=False, redirect_stderr=False) as spinner:
        task = spinner.add_task(first, total=None)

        def say(message: str) -> None:
            spinner.console.print(f"[dim]{shown(message)}[/]")
            ready = " loaded in " in message or " ready in " in message  # the model is in: retrieval next
            step = "searching ..." if ready else message
            spinner.update(task, description=shown(step if len(step) <= 60 else step[:57] + "..."))

        yield say


def _batch(workflow, out: Output, say: Callable[[str], None]) -> None:
    """One JSON line a question. A question the model server fails on (--llm URL) gets a line with the
    error instead, and the batch goes on; the exit code is then the first failure's."""
    from ..errors import ModelServerError

    failed: ModelServerError | None = None
    for line in _stdin_questions():
        try:
            out.line(workflow.ask(line, on_progress=say))
        except ModelServerError as exc:
            error(exc.message, exc.hint)
            failed = failed or exc
            out.line({"question": line, "error": {"message": exc.message, "hint": exc.hint,
                                                   "exit_code": exit_code(exc)}})
    if failed is not None:
        raise typer.Exit(exit_code(failed))


def _stdin_questions() -> list[str]:
    """One question a line, blank lines kept (they get an empty, unanswered line) so output N answers input N."""
    lines = stdin_lines()
    if lines and not lines[-1].strip():
        lines = lines[:-1]  # the newline that ends the last line opens no new one
    return [line.strip() for line in lines]


def render(console, payload: dict) -> None:
    """Every outcome as sentences for a person: the answer (or that the documents do not say), its sources."""
    if "answer" not in payload:
        from .search import render as render_hits

        return render_hits(console, payload)
    if not payload["answered"]:
        console.print(f"[bold]{shown(payload['answer'])}[/]")
        if payload["hits"]:
            console.print("\n[bold]Closest, but not an answer:[/]")
        for hit in payload["hits"]:
            console.print(f"  [{hit['rank']}] {_where(hit)}  [dim]{shown(clipped(hit['snippet'], 160))}[/]")
            _older(console, hit)
        _abstain_hint(console, payload)
    elif _closest(payload):
        console.print("[bold]ragchain found no sentence that answers this; the documents may not say.[/] "
                      "The sentence closest to it in meaning:")
        console.print(f"  {shown(payload['answer'])}")
        _render_sources(console, payload)
    else:
        console.print(shown(payload["answer"]))
        _render_sources(console, payload)
    _versions(console, payload)
    t = payload["timings"]
    model = f"answering {t['generate']:.2f}s  " if "generate" in t else ""  # else the model never ran
    console.print(f"[dim]retrieve {t['retrieve']:.2f}s  {model}total {t.get('total', 0):.2f}s[/]")


def _abstain_hint(console, payload: dict) -> None:
    """Why the passages above were not answered from, when the judge or the evidence rule decided it."""
    evidence = payload.get("evidence") or {}
    if not payload["hits"] or "draft" in payload:
        return
    if evidence.get("judge") is not None and evidence["judge"] < evidence["judge_bar"]:
        console.print(f"[dim]The answer judge finds no sentence here that answers it (best {evidence['judge']:.0%}; "
                      f"ragchain answers from {evidence['judge_bar']:.0%}); --no-abstain answers from them anyway.[/]")
    elif evidence.get("probability") is not None and evidence["probability"] < evidence["answers_from"]:
        console.print(f"[dim]How likely these passages answer it, from their overlap with the question: "
                      f"{evidence['probability']:.0%} (ragchain answers from {evidence['answers_from']:.0%}); "
                      "--no-abstain answers from them anyway.[/]")


def _render_sources(console, payload: dict) -> None:
    _not_verified(console, payload)
    cited = [c for c in payload["citations"] if c["cited"]]
    label = "Sources" if cited else "Passages consulted (none is cited for this answer)"
    if payload["citations"]:
        console.print(f"\n[bold]{label}[/]")
    by_number = {h["rank"]: h for h in payload["hits"]}
    for c in payload["citations"]:
        hit = by_number.get(c["number"], {"doc_id": c["doc_id"], "page": c["page"]})
        console.print(f"  [{c['number']}] {_where(hit)}  [dim]{c['chunk_id']}[/]")
        _older(console, hit)
    listed = {c["number"] for c in payload["citations"]}
    also = [f"[{h['rank']}] {_where(h)}" for h in payload["hits"] if h["rank"] not in listed]
    if also:  # read by the model (found, when none ran: _closest) but not cited: why the numbers above have gaps
        console.print(f"  [dim]also {'found' if _closest(payload) else 'read'}, not cited: {', '.join(also)}[/]")
    replaced = {old: h["doc_id"] for h in payload["hits"] for old in h.get("older_versions", [])}
    for old, new in replaced.items():  # --latest dropped these
        console.print(f"  [dim]older version {shown(old)} also matched; answered from {shown(new)}[/]")


def _not_verified(console, payload: dict) -> None:
    """Why an answer is not shown verified, and what a reader can check it against."""
    if _closest(payload):
        console.print("[bold yellow]Not verified as an answer:[/] quoted word for word; check that it answers "
                      "the question.")
    elif payload.get("quoted"):
        console.print("[bold yellow]Not verified as an answer:[/] this is the passage's sentence the answer judge "
                      "finds answers the question best, quoted word for word; check that it answers it.")
        console.print(f"[dim]The model's own answer, \"{shown(payload['draft'])}\", was not verified "
                      f"({shown(payload['draft_not_verified'])}).[/]")
    elif not payload["supported"]:
        why = payload.get("not_verified") or "the passages do not contain its key content"
        console.print(f"[bold yellow]Not verified:[/] {shown(why)}; treat this answer as the model's guess, "
                      "not as a cited fact.")
        if payload.get("closest") and payload["closest"] not in why:  # not twice when the reason quotes it
            console.print(f"[dim]The passages' sentence closest to it: \"{shown(payload['closest'])}\"[/]")


def _closest(payload: dict) -> bool:
    """The judge found no answering sentence and no model ran: the sentence closest in meaning is quoted."""
    return bool(payload.get("quoted")) and "draft" not in payload


def _older(console, hit: dict) -> None:
    if hit.get("superseded_by"):  # with --versions all an older version can be what the answer came from
        console.print(f"      [yellow]older version of {shown(hit['superseded_by'])}[/] "
                      "[dim](--versions newest answers from the newest)[/]")


_HOW = {"retrieved": "answered from the newest version, {new}; the older {old} also matched",
        "fetched": "answered from the newest version, {new}, read in place of the older {old}",
        "superseded": "[yellow]{old} is superseded by {new}[/], which the search left out (a filter?)"}


def _versions(console, payload: dict) -> None:
    """The version groups the answer reconciled ("dropped" ones are listed under the sources); an answer
    names only the groups of the passages it lists (a group read for another question part is noise)."""
    listed = {h["doc_id"] for h in payload["hits"]}
    for group in payload.get("versions", []):
        if payload["answered"] and group["newest"] not in listed:
            continue
        if not payload["answered"] and not bears_on(group, payload.get("question", "")):
            continue
        if group["how"] in _HOW:
            names = {"new": shown(group["newest"]), "old": shown(", ".join(group["older"]))}
            console.print(f"[dim]{_HOW[group['how']].format(**names)}[/]")
        said = group.get("older_said")
        if said and not payload["answered"]:
            console.print(f'[dim]  the older version said: "{shown(said["sentence"])}"[/]')


def _where(hit: dict) -> str:
    return shown(hit["doc_id"]) + (f" p.{hit['page']}" if hit.get("page") else "")
