"""Google's Python client, google-genai 3.6.1, unchanged, against `genv serve`.

Driven by official-python-client.test.ts: `python official_client.py SCENARIO [ARG]` runs one
scenario against the emulator named by the environment and prints, as one JSON object on stdout,
what the client returned or raised (facts, not verdicts: the jest test holds the expectations).
A failure the scenario did not expect escapes as a traceback and a non-zero exit.

Environment: GENV_BASE_URL, GENV_KEY, GENV_OTHER_KEY (a second key of the same emulator),
GENV_WORK (a scratch directory), GENV_REPOSITORY (a file:// git repository for a repository source).
"""

import asyncio
import base64
import hashlib
import io
import json
import os
import sys
import tarfile
import time
import warnings

warnings.simplefilter("ignore")  # "Environments usage is experimental …" on first use

from google import genai  # noqa: E402
from google.genai import errors, types  # noqa: E402
from google.genai._interactions_errors import APIStatusError  # noqa: E402  (not re-exported publicly)

BASE_URL = os.environ["GENV_BASE_URL"]
KEY = os.environ["GENV_KEY"]
OTHER_KEY = os.environ["GENV_OTHER_KEY"]
WORK = os.environ["GENV_WORK"]


def client(key=KEY, api_version=None, attempts=None):
    """The client as a user builds it, pointed at the emulator by its base URL only."""
    options = types.HttpOptions(base_url=BASE_URL, api_version=api_version)
    if attempts is not None:
        options.retry_options = types.HttpRetryOptions(attempts=attempts)
    return genai.Client(api_key=key, http_options=options)


def error(exception):
    """What a caller sees of an error: its class, HTTP code, Google status and message."""
    if isinstance(exception, APIStatusError):  # the environments/credentials stack (NotFoundError, …)
        body = exception.body if isinstance(exception.body, dict) else {}
        inner = body.get("error", {})
        return {"class": type(exception).__name__, "code": exception.status_code, "status": inner.get("status"), "message": inner.get("message")}
    if isinstance(exception, errors.APIError):  # download and upload chunks (ClientError, ServerError)
        return {"class": type(exception).__name__, "code": exception.code, "status": exception.status, "message": exception.message}
    raise exception


def refused(call):
    """Runs `call`, which must fail; returns the error and how long the caller waited for it."""
    started = time.monotonic()
    try:
        call()
    except Exception as exception:  # noqa: BLE001
        return {**error(exception), "seconds": round(time.monotonic() - started, 3)}
    raise AssertionError("expected the call to fail")


async def refused_async(coroutine):
    started = time.monotonic()
    try:
        await coroutine
    except Exception as exception:  # noqa: BLE001
        return {**error(exception), "seconds": round(time.monotonic() - started, 3)}
    raise AssertionError("expected the call to fail")


def wire(model):
    """A response model as its JSON (what the server sent, unknown fields included)."""
    return model.to_dict(mode="json")


def paths(response):
    return [file.path for file in response.files or []]


def tar_gz(entries):
    """A tar.gz of {name: text}; a value ("symlink", target) makes a symlink."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, content in entries.items():
            info = tarfile.TarInfo(name)
            if isinstance(content, tuple):
                info.type, info.linkname = tarfile.SYMTYPE, content[1]
                archive.addfile(info)
            else:
                data = content.encode()
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


# ------------------------------------------------------------------------------------------------
# Scenarios
# ------------------------------------------------------------------------------------------------


def environments():
    """Create with every field and every network form; Get and List echo; the key once; refusals; delete."""
    c = client()
    c.credentials.create(id="py-gh", type="bearer_token", token="ghp_py")
    network = {
        "allowlist": [
            {"domain": "api.github.com", "credential": "py-gh"},
            {"domain": "*.googleapis.com", "transform": {"X-Api-Key": "abc"}},
            {"domain": "example.com", "transform": [{"X-A": "1"}, {"X-B": "2"}]},
        ]
    }
    sources = [
        {"type": "inline", "content": "print('Hello, World!')", "target": "main.py"},
        {"type": "inline", "content": base64.b64encode(b"\x00\x01\xff").decode(), "encoding": "base64", "target": "bin/blob.bin"},
        {"type": "repository", "source": os.environ["GENV_REPOSITORY"], "target": "repo"},
        {"type": "skill_registry", "source": "skills/hello"},
    ]
    custom_config = {"pool": "gpu", "limits": {"cpu": 4}, "tags": ["a", "b"], "on": True, "none": None}
    full = c.environments.create(
        sources=sources, network=network, mode="self_hosted", system_instruction="Be terse.", custom_config=custom_config
    )
    got = c.environments.get(full.id)
    prefixed = c.environments.get(f"environments/{full.id}")  # sent as /environments/environments/{id}
    listed = [wire(e) for e in c.environments.list(page_size=1000).environments or [] if e.id == full.id]

    forms = {}
    for name, value in [("disabled", "disabled"), ("allowlist_disabled", {"allowlist": "disabled"}), ("allowlist", network)]:
        created = c.environments.create(network=value)
        forms[name] = wire(created).get("network")
        c.environments.delete(created.id)
    plain = c.environments.create()

    refusals = {
        "system_instruction_on_demand": refused(lambda: c.environments.create(system_instruction="x")),
        "custom_config_on_demand": refused(lambda: c.environments.create(mode="on_demand", custom_config={"a": 1})),
        "unknown_mode": refused(lambda: c.environments.create(mode="future_mode")),
        "escaping_target": refused(lambda: c.environments.create(sources=[{"type": "inline", "content": "x", "target": "../x"}])),
        "unknown_credential": refused(lambda: c.environments.create(network={"allowlist": [{"domain": "a.com", "credential": "nope"}]})),
    }

    c.environments.delete(full.id)
    gone = refused(lambda: c.environments.get(full.id))
    gone_twice = refused(lambda: c.environments.delete(full.id))
    c.environments.delete(plain.id)
    c.credentials.delete("py-gh")
    return {
        "created": wire(full),
        "typed": {
            "file_count": full.file_count,
            "size_bytes": full.size_bytes,
            "mode": full.mode,
            "environment_key": full.environment_key,
            "custom_config": full.custom_config,
            "system_instruction": (full.model_extra or {}).get("system_instruction"),
        },
        "got": wire(got),
        "got_prefixed": wire(prefixed),
        "got_key": got.environment_key,
        "listed": listed,
        "network_forms": forms,
        "plain": wire(plain),
        "refusals": refusals,
        "after_delete": {"get": gone, "delete": gone_twice},
    }


def paging():
    """List pages with and without the mode filter; the filter keeps its pages."""
    c = client()
    own = {"self_hosted": [], "on_demand": []}
    for mode in ["self_hosted", "on_demand", "self_hosted", "on_demand", "self_hosted"]:
        own[mode].append(c.environments.create(mode=mode).id)

    def walk(**params):
        seen, sizes, token = [], [], None
        while True:
            page = c.environments.list(page_size=2, page_token=token, **params)
            sizes.append(len(page.environments or []))
            seen += [e.id for e in page.environments or []]
            token = page.next_page_token
            if not token:
                return [i for i in seen if i in own["self_hosted"] + own["on_demand"]], max(sizes)

    keys = [wire(e).get("environment_key") for e in c.environments.list(page_size=1000, mode="self_hosted").environments or []]
    result = {
        "own": own,
        "self_hosted": walk(mode="self_hosted"),
        "on_demand": walk(mode="on_demand"),
        "all": walk(),
        "keys_listed": [k for k in keys if k is not None],
        "unknown_mode": refused(lambda: c.environments.list(mode="future_mode")),
        "negative_page_size": refused(lambda: c.environments.list(page_size=-1)),
        "bad_token": refused(lambda: c.environments.list(page_token="not-a-token")),
    }
    for ids in own.values():
        for i in ids:
            c.environments.delete(i)
    return result


def files():
    """Listing (root, recursive, one file, paged), downloads, 404s."""
    c = client()
    blob = bytes(range(256))
    sources = [
        {"type": "inline", "content": "print(1)", "target": "main.py"},
        {"type": "inline", "content": base64.b64encode(blob).decode(), "encoding": "base64", "target": "workspace/bin/all.bytes"},
        {"type": "inline", "content": "deep", "target": "workspace/src/deep/a.txt"},
        {"type": "inline", "content": "space", "target": "docs/read me.md"},
        {"type": "inline", "content": "umlaut", "target": "docs/ü é.txt"},
    ] + [{"type": "inline", "content": str(i), "target": f"many/f{i}.txt"} for i in range(5)]
    environment = c.environments.create(sources=sources)
    e = environment.id

    pages, token = [], None
    while True:
        page = c.environments.files.list(environment=e, path="many", page_size=2, page_token=token)
        pages.append(paths(page))
        token = page.next_page_token
        if not token:
            break
    result = {
        "root": [(f.name, f.type) for f in c.environments.files.list(environment=e, path="").files],
        "recursive": paths(c.environments.files.list(environment=f"environments/{e}", path="workspace", recursive=True)),
        "one": wire(c.environments.files.list(environment=e, path="/main.py").files[0]),
        "directory_entry": wire(c.environments.files.list(environment=e, path="workspace").files[0]),
        "pages": pages,
        "docs": paths(c.environments.files.list(environment=e, path="docs")),
        "download_binary": base64.b64encode(c.environments.files.download(environment=e, path="/workspace/bin/all.bytes")).decode() == base64.b64encode(blob).decode(),
        "download_prefixed": c.environments.files.download(environment=f"environments/{e}", path="main.py").decode(),
        "download_space": c.environments.files.download(environment=e, path="docs/read me.md").decode(),
        "download_umlaut": c.environments.files.download(environment=e, path="docs/ü é.txt").decode(),
        "list_missing": refused(lambda: c.environments.files.list(environment=e, path="nope")),
        "download_missing": refused(lambda: c.environments.files.download(environment=e, path="nope.txt")),
        "download_directory": refused(lambda: c.environments.files.download(environment=e, path="workspace")),
        "list_unknown_environment": refused(lambda: c.environments.files.list(environment="env_nope", path="")),
    }
    c.environments.delete(e)
    return result


def uploads():
    """Bytes, a path, a file object, overwrite, a 9 MiB two-chunk upload, tar.gz extract, and the refusals, at once."""
    c = client()
    e = c.environments.create(sources=[{"type": "inline", "content": "print(1)", "target": "main.py"}]).id
    download = lambda path: c.environments.files.download(environment=e, path=path)  # noqa: E731
    result = {}

    uploaded = c.environments.files.upload(environment=e, path="up/bytes.bin", file=b"\x00\x01\x02")
    result["bytes"] = [wire(f) for f in uploaded.files]
    notes = os.path.join(WORK, "notes.txt")
    with open(notes, "w") as handle:
        handle.write("from a path\n")
    result["path"] = [wire(f) for f in c.environments.files.upload(environment=f"environments/{e}", path="/up/notes.txt", file=notes).files]
    result["file_object"] = paths(c.environments.files.upload(environment=e, path="up/stream.txt", file=io.BytesIO(b"streamed")))
    result["empty"] = [wire(f) for f in c.environments.files.upload(environment=e, path="up/empty.txt", file=b"").files]
    result["downloads"] = [download("up/bytes.bin").hex(), download("up/notes.txt").decode(), download("up/stream.txt").decode(), download("up/empty.txt").decode()]

    result["exists"] = refused(lambda: c.environments.files.upload(environment=e, path="up/notes.txt", file=b"again"))
    result["after_exists"] = download("up/notes.txt").decode()
    c.environments.files.upload(environment=e, path="up/notes.txt", file=b"replaced", overwrite=True)
    result["overwritten"] = download("up/notes.txt").decode()

    big = bytes((i * 7) % 251 for i in range(9 * 1024 * 1024 + 5))
    result["big"] = [wire(f) for f in c.environments.files.upload(environment=e, path="data/big.bin", file=big).files]
    result["big_roundtrip"] = hashlib.sha256(download("data/big.bin")).hexdigest() == hashlib.sha256(big).hexdigest()

    archive = os.path.join(WORK, "pkg.tar.gz")
    with open(archive, "wb") as handle:
        handle.write(tar_gz({"pkg/a.txt": "a", "pkg/sub/b.txt": "b", "pkg/link": ("symlink", "a.txt")}))
    result["extract"] = paths(c.environments.files.upload(environment=e, path="ex", file=archive, extract=True))
    result["extracted"] = paths(c.environments.files.list(environment=e, path="ex", recursive=True))
    result["extract_again"] = refused(lambda: c.environments.files.upload(environment=e, path="ex", file=archive, extract=True))
    result["extract_root"] = paths(c.environments.files.upload(environment=e, path="", file=tar_gz({"root.txt": "r"}), extract=True))

    result["archive_escaping"] = refused(lambda: c.environments.files.upload(environment=e, path="ex2", file=tar_gz({"../escape.txt": "x"}), extract=True))
    result["archive_absolute"] = refused(lambda: c.environments.files.upload(environment=e, path="ex2", file=tar_gz({"/etc/evil": "x"}), extract=True))
    result["archive_link_out"] = refused(lambda: c.environments.files.upload(environment=e, path="ex2", file=tar_gz({"l": ("symlink", "/etc/passwd")}), extract=True))
    result["not_an_archive"] = refused(lambda: c.environments.files.upload(environment=e, path="ex2", file=b"plain text, no tar", extract=True))
    result["onto_directory"] = refused(lambda: c.environments.files.upload(environment=e, path="up", file=b"x"))
    result["unknown_environment"] = refused(lambda: c.environments.files.upload(environment="env_nope", path="a.txt", file=b"x"))
    result["empty_path"] = refused(lambda: c.environments.files.upload(environment=e, path="", file=b"x"))
    result["root_after"] = sorted(f.path for f in c.environments.files.list(environment=e, path="").files)
    stats = c.environments.get(e)
    result["stats"] = {"file_count": stats.file_count, "size_bytes": stats.size_bytes}
    c.environments.delete(e)
    return result


def forks():
    """from_environment copies the current tree, uploads included; then the two are independent."""
    c = client()
    origin = c.environments.create(sources=[{"type": "inline", "content": "a", "target": "a.txt"}]).id
    c.environments.files.upload(environment=origin, path="uploaded.txt", file=b"u")
    fork = c.environments.create(from_environment=f"environments/{origin}", network="disabled")
    c.environments.files.upload(environment=fork.id, path="only-in-fork.txt", file=b"f")
    self_hosted = c.environments.create(from_environment=origin, mode="self_hosted")
    result = {
        "fork": wire(fork),
        "fork_files": sorted(paths(c.environments.files.list(environment=fork.id, path=""))),
        "origin_files": sorted(paths(c.environments.files.list(environment=origin, path=""))),
        "self_hosted": {"mode": self_hosted.mode, "has_key": bool(self_hosted.environment_key), "file_count": self_hosted.file_count},
        "with_sources": refused(lambda: c.environments.create(from_environment=origin, sources=[{"type": "inline", "content": "x", "target": "x"}])),
        "unknown_origin": refused(lambda: c.environments.create(from_environment="env_nope")),
    }
    for i in [origin, fork.id, self_hosted.id]:
        c.environments.delete(i)
    return result


def credentials():
    """Create each type, list and page, get, update with update_mask, delete; secrets never come back."""
    c = client()
    created = [
        wire(c.credentials.create(id="py-bearer", type="bearer_token", token="ghp_secret", header_name="Authorization", prefix="token")),
        wire(c.credentials.create(id="py-env", type="environment_variable", value="s3cr3t", injection_location=["header", "query"], trusted_domains=["api.example.com"])),
        wire(c.credentials.create(id="py-oauth", type="oauth2", client_id="cid", client_secret="csecret", refresh_token="rtok", token_url="https://oauth2.example.com/token", scopes=["a"])),
    ]
    seen, token = [], None
    while True:
        page = c.credentials.list(page_size=2, page_token=token)
        seen += [credential.id for credential in page.credentials or []]
        token = page.next_page_token
        if not token:
            break
    updated = wire(c.credentials.update("py-bearer", type="bearer_token", token="ghp_rotated", update_mask="token"))
    once = client(attempts=1)  # held in a variable: a Client closes its connections when collected
    environment = c.environments.create(network={"allowlist": [{"domain": "api.github.com", "credential": "py-bearer"}]})
    result = {
        "created": created,
        "listed": [i for i in seen if i.startswith("py-")],
        "got": wire(c.credentials.get("py-oauth")),
        "updated": updated,
        "environment_network": wire(environment)["network"],
        # The client retries a 409 four times by default (≈ 7 s): one attempt shows the answer.
        "duplicate": refused(lambda: once.credentials.create(id="py-env", type="environment_variable", value="v", injection_location="header")),
        # The client checks types and required fields itself (pydantic); the server checks the rest.
        "bad_id": refused(lambda: c.credentials.create(id="has space", type="bearer_token", token="t")),
        "empty_token": refused(lambda: c.credentials.create(id="py-y", type="bearer_token", token="")),
        "deleted": [wire(c.credentials.delete(i)) for i in ["py-bearer", "py-env", "py-oauth"]],
        "get_deleted": refused(lambda: c.credentials.get("py-env")),
    }
    c.environments.delete(environment.id)
    return result


def async_client():
    """client.aio: the same surface, awaited."""

    async def run():
        aio = client().aio
        created = await aio.environments.create(mode="self_hosted", sources=[{"type": "inline", "content": "x", "target": "a.txt"}])
        e = created.id
        result = {
            "created": {"mode": created.mode, "has_key": bool(created.environment_key), "file_count": created.file_count},
            "got_key": (await aio.environments.get(e)).environment_key,
            "listed": e in [x.id for x in (await aio.environments.list(mode="self_hosted", page_size=1000)).environments or []],
        }
        uploaded = await aio.environments.files.upload(environment=e, path="up/b.bin", file=b"\x01\x02")
        result["uploaded"] = paths(uploaded)
        big = bytes(9 * 1024 * 1024 + 5)
        result["big"] = paths(await aio.environments.files.upload(environment=e, path="big.bin", file=big))
        result["files"] = sorted(paths(await aio.environments.files.list(environment=e, path="", recursive=True)))
        result["download"] = (await aio.environments.files.download(environment=e, path="up/b.bin")).hex()
        result["exists"] = await refused_async(aio.environments.files.upload(environment=e, path="a.txt", file=b"y"))
        result["archive_escaping"] = await refused_async(aio.environments.files.upload(environment=e, path="x", file=tar_gz({"../x": "x"}), extract=True))
        await aio.credentials.create(id="py-aio", type="bearer_token", token="t")
        result["credential"] = wire(await aio.credentials.get("py-aio"))
        result["credential_deleted"] = wire(await aio.credentials.delete("py-aio"))
        await aio.environments.delete(e)
        result["gone"] = await refused_async(aio.environments.get(e))
        result["bad_mode"] = await refused_async(aio.environments.create(system_instruction="x"))
        return result

    return asyncio.run(run())


def versions(api_version):
    """Every call under one API version: the client's default (v1), or one set on the client."""
    c = client(api_version=None if api_version == "default" else api_version)
    e = c.environments.create(sources=[{"type": "inline", "content": "x", "target": "a.txt"}]).id
    c.environments.get(e)
    c.environments.list(page_size=1)
    c.environments.files.list(environment=e, path="")
    c.environments.files.download(environment=e, path="a.txt")
    c.environments.files.upload(environment=e, path="b.txt", file=b"b")
    c.credentials.list()
    c.environments.delete(e)
    return {"environment": e}


def per_call_versions():
    """api_version per call, and the upload's own http_options."""
    c = client()
    e = c.environments.create(api_version="v1alpha").id
    c.environments.get(e, api_version="v1beta")
    c.environments.files.list(environment=e, path="", api_version="v1alpha")
    # Per-call http_options replace the client's for the chunk POSTs, API key header included: the
    # chunks go out without a key and the server refuses them (403), at once.
    keyless = refused(lambda: c.environments.files.upload(environment=e, path="a.txt", file=b"a", http_options={"api_version": "v1beta"}))
    c.environments.files.upload(environment=e, path="a.txt", file=b"a", http_options={"api_version": "v1beta", "headers": {"x-goog-api-key": KEY}})
    downloaded = c.environments.files.download(environment=e, path="a.txt", http_options={"api_version": "v1alpha", "headers": {"x-goog-api-key": KEY}})
    c.environments.delete(e, api_version="v1alpha")
    return {"environment": e, "keyless_upload": keyless, "downloaded": downloaded.decode()}


def isolation():
    """A second key sees none of the first key's environments, files, uploads, forks or credentials."""
    mine, theirs, stranger = client(), client(key=OTHER_KEY), client(key="not-a-key")
    e = mine.environments.create(mode="self_hosted", sources=[{"type": "inline", "content": "mine", "target": "a.txt"}]).id
    mine.credentials.create(id="py-shared-name", type="bearer_token", token="mine")
    result = {
        "get": refused(lambda: theirs.environments.get(e)),
        "delete": refused(lambda: theirs.environments.delete(e)),
        "files": refused(lambda: theirs.environments.files.list(environment=e, path="")),
        "download": refused(lambda: theirs.environments.files.download(environment=e, path="a.txt")),
        "upload": refused(lambda: theirs.environments.files.upload(environment=e, path="b.txt", file=b"x")),
        "fork": refused(lambda: theirs.environments.create(from_environment=e)),
        "listed": e in [x.id for x in theirs.environments.list(page_size=1000).environments or []],
        "listed_self_hosted": e in [x.id for x in theirs.environments.list(page_size=1000, mode="self_hosted").environments or []],
        "credential": refused(lambda: theirs.credentials.get("py-shared-name")),
        "same_credential_id": wire(theirs.credentials.create(id="py-shared-name", type="bearer_token", token="theirs")),
        "unknown_key": refused(lambda: stranger.environments.list()),
    }
    result["still_mine"] = mine.environments.files.download(environment=e, path="a.txt").decode()
    mine.environments.delete(e)
    mine.credentials.delete("py-shared-name")
    theirs.credentials.delete("py-shared-name")
    return result


SCENARIOS = {
    "environments": environments,
    "paging": paging,
    "files": files,
    "uploads": uploads,
    "forks": forks,
    "credentials": credentials,
    "async": async_client,
    "versions": versions,
    "per_call_versions": per_call_versions,
    "isolation": isolation,
}

if __name__ == "__main__":
    name, *args = sys.argv[1:]
    print(json.dumps(SCENARIOS[name](*args), default=str))
