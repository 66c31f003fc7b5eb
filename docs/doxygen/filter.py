#!/usr/bin/env python3
"""Doxygen INPUT_FILTER: rewrites a source file on the fly into what Doxygen 1.9.4 understands.

Doxygen calls it as `filter.py FILE` and reads the result from standard output; the files in the
repository are never changed. What it rewrites:

C# (*.cs)
  * A file that declares no public type comes out empty: the reference is the public surface.
  * File-scoped namespaces (`namespace Cryptography;`, C# 10) become block namespaces. Doxygen 1.9
    predates them and would otherwise put every type in the global namespace, losing the
    namespace-qualified names (`Cryptography.AesGcmSiv`).
  * `<inheritdoc cref="M(Span{byte})"/>` naming a member of the same file is resolved here, as the
    C# compiler does: the target's documentation is copied in, except the elements the member
    gives itself (its own <param>s, <returns>) and <param>s of parameters the member does not
    have. Doxygen's `\\copydoc` would copy every <param> twice. A bare `<inheritdoc/>` (an
    override of a .NET member such as Stream.CanRead) is dropped: Doxygen has nothing to copy.
  * `<example>` gets an "Example" heading (`\\par Example`): Doxygen 1.9 prints it without one.

Markdown (docs/*.md)
  * The start page's (index.md) subheadings become plain HTML headings, so that the navigation
    tree lists the guides under it and not its sections.
  * Every other heading gets an explicit id, `{#PAGE-SLUG}` (`{#PAGE}` for a page's title), where SLUG
    is GitHub's heading anchor. Doxygen 1.9 makes no ids of its own, and labels are global across
    the site, hence the page prefix. Links written for GitHub are rewritten to match:
    `(#slug)` -> `(#PAGE-slug)`, `(other.md#slug)` -> `(#other-slug)`. Pages then have stable
    file names (`getting-started.html`) and in-page links work on GitHub and on the site alike.
  * `(../PATH)` links to repository files outside docs/ (README, Fuzz/README.md) are not part of
    the site; they are rendered as the path in code style instead of a dead link.
"""

import os
import re
import sys


def slugify(text):
    # GitHub's anchor: lower case, drop what is not a letter, digit, space, hyphen or underscore,
    # spaces to hyphens. Code spans and links keep their text.
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^a-z0-9 _-]", "", text)
    return text.replace(" ", "-")


def filter_markdown(path, text):
    page = os.path.splitext(os.path.basename(path))[0]
    is_main = page == "index"
    out = []
    in_fence = False
    for line in text.split("\n"):
        if line.startswith("```"):
            in_fence = not in_fence
            out.append(line)
            continue
        if not in_fence:
            heading = re.match(r"^(#{1,6}) (.*?)\s*$", line)
            if heading and "{#" not in line:
                level, title = heading.groups()
                # Doxygen 1.9 prints a code span in a heading as escaped "<tt>" text: drop the backticks.
                title = title.replace("`", "")
                if level == "#":
                    if not is_main:
                        line = f"# {title} {{#{page}}}"
                elif is_main:
                    # The start page's headings would become entries of the navigation tree, next to
                    # (and above) the guides themselves; as plain HTML headings they do not.
                    line = f"<h{len(level)}>{title}</h{len(level)}>"
                else:
                    line = f"{level} {title} {{#{page}-{slugify(title)}}}"
            line = re.sub(r"\]\(#([A-Za-z0-9_-]+)\)", lambda m: f"](#{page}-{m.group(1)})", line)
            line = re.sub(r"\]\(([a-z0-9-]+)\.md#([A-Za-z0-9_-]+)\)", lambda m: f"](#{m.group(1)}-{m.group(2)})", line)
            line = re.sub(r"\[([^\]]*)\]\(\.\./([^)#]+)\)", r"\1 (`\2` in the repository)", line)
        out.append(line)
    return "\n".join(out)


DOC_LINE = re.compile(r"^(\s*)///\s?(.*)$")
DECLARATION = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*(?:<[^>()]*>)?\s*(\(([^)]*)\))?\s*(?:=>|\{|$|;|:)")


def split_parameters(text):
    """Top-level comma split of a parameter or cref argument list (generics may hold commas)."""
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch in "<{[(":
            depth += 1
        elif ch in ">}])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current)
    return [p.strip() for p in parts]


def parameter_type(parameter):
    parameter = parameter.split("=")[0].strip()
    words = parameter.replace("{", "<").replace("}", ">").split()
    words = [w for w in words if w not in ("this", "in", "ref", "out", "params", "scoped")]
    return "".join(words[:-1]) if len(words) > 1 else "".join(words)


def member_blocks(lines):
    """Yields (first, last, declaration) for each /// block: line range and the line it documents."""
    i = 0
    while i < len(lines):
        if DOC_LINE.match(lines[i]):
            first = i
            while i < len(lines) and DOC_LINE.match(lines[i]):
                i += 1
            j = i
            while j < len(lines) and (lines[j].strip().startswith("[") or not lines[j].strip()):
                j += 1
            yield first, i - 1, lines[j] if j < len(lines) else ""
        else:
            i += 1


def signature(declaration):
    """(name, [parameter types] or None) of a member declaration line."""
    code = declaration.split("//")[0]
    for m in DECLARATION.finditer(code):
        name = m.group(1)
        if name in ("public", "protected", "internal", "private", "override", "static", "async", "virtual",
                    "sealed", "readonly", "new", "abstract", "partial", "unsafe", "extern", "get", "set"):
            continue
        if m.group(2) is None:
            continue
        return name, [parameter_type(p) for p in split_parameters(m.group(3))]
    m = re.search(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*(?:=>|\{|$)", code.strip())
    return (m.group(1), None) if m else (None, None)


def parameter_names(declaration):
    code = declaration.split("//")[0]
    m = re.search(r"\(([^)]*)\)", code)
    if not m:
        return set()
    return {p.split("=")[0].split()[-1] for p in split_parameters(m.group(1)) if p.split()}


def block_elements(lines, first, last):
    """The XML elements of a doc block as (tag, name attribute, source lines)."""
    elements, current, depth = [], None, 0
    for k in range(first, last + 1):
        content = DOC_LINE.match(lines[k]).group(2)
        if current is None:
            m = re.match(r"<([a-zA-Z]+)(?:\s+name=\"([^\"]*)\")?", content.strip())
            if not m:
                continue
            current = [m.group(1), m.group(2), []]
        current[2].append(content)
        joined = " ".join(current[2])
        opened = len(re.findall(r"<%s\b" % current[0], joined)) - len(re.findall(r"<%s\b[^>]*/>" % current[0], joined))
        closed = len(re.findall(r"</%s>" % current[0], joined))
        if opened == closed:
            elements.append(tuple(current))
            current = None
    return elements


INHERITDOC = re.compile(r"^\s*///\s*<inheritdoc\s+cref=\"([^\"]+)\"\s*/>\s*$")


def inheritdoc_line(lines, first, last):
    for k in range(first, last + 1):
        m = INHERITDOC.match(lines[k])
        if m:
            return k, m.group(1)
    return None, None


def resolve_inheritdoc(lines):
    # One at a time, a target that itself inherits going first: a chain resolves in any order.
    while True:
        blocks = list(member_blocks(lines))
        by_signature = {}
        for first, last, declaration in blocks:
            name, types = signature(declaration)
            if name:
                by_signature.setdefault(name, []).append((types, first, last))
        pending = [(b, inheritdoc_line(lines, b[0], b[1])) for b in blocks]
        pending = [(b, at, target) for b, (at, target) in pending if at is not None]
        if not pending:
            return lines
        for (first, last, declaration), at, target in pending:
            m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\((.*)\))?$", target)
            wanted = [parameter_type(t) for t in split_parameters(m.group(2))] if m.group(2) is not None else None
            candidates = [c for c in by_signature.get(m.group(1), []) if wanted is None or c[0] == wanted]
            if not candidates:
                raise SystemExit(f"filter.py: cannot resolve <inheritdoc cref=\"{target}\"/>")
            _, t_first, t_last = candidates[0]
            if inheritdoc_line(lines, t_first, t_last)[0] is None:
                break
        else:
            raise SystemExit(f"filter.py: circular <inheritdoc cref=\"{target}\"/>")
        indent = DOC_LINE.match(lines[at]).group(1)
        own_keys = {(tag, name) for tag, name, _ in block_elements(lines, first, last) if tag != "inheritdoc"}
        names = parameter_names(declaration)
        copied = []
        for tag, name, body in block_elements(lines, t_first, t_last):
            if (tag, name) in own_keys or (tag == "param" and name not in names):
                continue
            copied.extend(f"{indent}/// {b}" for b in body)
        lines[at:at + 1] = copied


PUBLIC_TYPE = re.compile(r"^public\s+(?:(?:sealed|static|abstract|partial|readonly)\s+)*(?:class|struct|enum|interface|record|delegate)\b", re.M)


def filter_csharp(text):
    if not PUBLIC_TYPE.search(text):
        # Internal-only files (the backends, the nonce history): not part of the reference, and
        # without them their namespaces (Cryptography.Internal, ...) do not show up empty.
        return ""
    lines = resolve_inheritdoc(text.split("\n"))
    closing = False
    for i, line in enumerate(lines):
        m = re.match(r"^namespace ([A-Za-z_][A-Za-z0-9_.]*);\s*$", line)
        if m and not closing:
            lines[i] = f"namespace {m.group(1)} {{"
            closing = True
            continue
        if re.match(r"^\s*///\s*<inheritdoc\s*/>\s*$", line):
            lines[i] = ""
        # Doxygen prints an <example> without a heading; give it one.
        lines[i] = re.sub(r"^(\s*///\s*)<example>", r"\1\\par Example\n\1", lines[i])
    text = "\n".join(lines)
    if closing:
        text += "\n}\n"
    return text


def main():
    path = sys.argv[1]
    with open(path, encoding="utf-8-sig") as f:
        text = f.read()
    if path.endswith(".md"):
        text = filter_markdown(path, text)
    elif path.endswith(".cs"):
        text = filter_csharp(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
