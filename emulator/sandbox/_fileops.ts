/**
 * The program behind the five filesystem tools. It runs *inside* the sandbox (`python3 -I -c`), so
 * every path, symlinks included, resolves in the sandbox's view: a link the agent planted to
 * `/etc/passwd` reaches the sandbox's generated file, never the host's. Arguments arrive as JSON on
 * stdin (never interpolated into code); the answer is one JSON line `{"output"}` or `{"error"}`.
 */

/** Bytes of a file that view_file returns; the rest is cut with a note. */
export const MAX_VIEW_BYTES = 1024 * 1024; // 1 MiB

export const FILEOPS_PY = String.raw`
import json, os, sys

MAX_VIEW = int(sys.argv[1])

class ToolError(Exception):
    pass

def absolute(path):
    return path if path.startswith("/") else "/" + path

def view_file(req):
    path = absolute(req["path"])
    with open(path, "rb") as f:
        data = f.read(MAX_VIEW + 1)
    text = data[:MAX_VIEW].decode("utf-8", errors="replace")
    if len(data) > MAX_VIEW:
        text += "\n[truncated: showing the first %d bytes of %s]" % (MAX_VIEW, path)
    return text

def write_to_file(req):
    path = absolute(req["path"])
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    data = req["content"].encode("utf-8", errors="surrogatepass")
    with open(path, "wb") as f:
        f.write(data)
    return "Wrote %d bytes to %s" % (len(data), path)

def replace_file_content(req):
    path = absolute(req["path"])
    target, replacement = req["target_content"], req["replacement_content"]
    with open(path, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError("%s is not a UTF-8 text file" % path)
    count = text.count(target)
    if count == 0:
        raise ToolError("target_content was not found in %s" % path)
    with open(path, "wb") as f:
        f.write(text.replace(target, replacement, 1).encode("utf-8", errors="surrogatepass"))
    if count == 1:
        return "Replaced 1 occurrence in %s" % path
    return "Replaced the first of %d occurrences in %s" % (count, path)

def list_dir(req):
    path = absolute(req["path"])
    with os.scandir(path) as it:
        names = sorted(e.name + ("/" if e.is_dir() else "") for e in it)
    return "\n".join(names)

def delete_file(req):
    path = absolute(req["path"])
    if os.path.isdir(path) and not os.path.islink(path):
        import shutil  # only here: importing it costs more than the rest of the program
        shutil.rmtree(path)
    else:
        os.unlink(path)
    return "Deleted %s" % path

OPS = {f.__name__: f for f in (view_file, write_to_file, replace_file_content, list_dir, delete_file)}

def main():
    req = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    try:
        out = {"output": OPS[req["op"]](req)}
    except ToolError as e:
        out = {"error": str(e)}
    except OSError as e:
        where = e.filename if e.filename is not None else req.get("path")
        out = {"error": "%s: %s" % (where, e.strerror or e)}
    except ValueError as e:
        out = {"error": str(e)}
    sys.stdout.write(json.dumps(out))

main()
`;
