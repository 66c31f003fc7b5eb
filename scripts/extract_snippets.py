#!/usr/bin/env python3
"""Extracts every C# code block of README.md and docs/**/*.md into C# files that one throwaway
project compiles (scripts/check-snippets.sh builds it), so a snippet that stops compiling fails CI.

Usage: extract_snippets.py REPO_ROOT OUTPUT_DIR

A block is a fenced block whose info string starts with csharp, cs or c#. Each becomes the body of
its own method, `static async Task Run(string[] args, <inputs>)`, in a namespace of its own, so a
block may use `await` and `args` as top-level statements do:

- `using` directives (at the start of a line, not `using var` or `using (`) of every block of a page
  are hoisted to the top of each of that page's files: a page's later blocks read on from its first;
- a line at the start of a block's line that declares a type (class, record, struct, interface,
  enum, with its attributes and modifiers) and everything after it go outside the method, as C#
  requires of top-level statements (types after statements);
- the inputs a block takes from the prose around it (a stream, a key store the reader already has)
  are named in an HTML comment right before the block, which the rendered page does not show:
      <!-- snippet: byte[] ikm, Stream output, CancellationToken cancellationToken -->
  and become the method's parameters. Keep them to what the reader plainly brings along.
  A block that reads on from the page's previous block (its variables) says so instead, with any
  inputs of its own after a comma:
      <!-- snippet: continues -->            <!-- snippet: continues, byte[] records -->
  and is compiled in the same method, after it.
- a block that is deliberately not C# that compiles (a list of signatures, a fragment) says so in
  its first line, visibly, where the reader sees it too:
      // not compiled: <why>
  Use it sparingly: every other block is compiled.

#line directives map every line back to its page, so the compiler's errors name README.md or
docs/<page>.md and the line in it. Prints one line per page: how many blocks it compiled and skipped.
"""

import os
import re
import sys

FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*)$")
LANGUAGES = {"csharp", "cs", "c#"}
CONTEXT = re.compile(r"^\s*<!--\s*snippet:\s*(?P<params>.*?)\s*-->\s*$")
NOT_COMPILED = re.compile(r"^\s*//\s*not compiled\b", re.IGNORECASE)
USING_DIRECTIVE = re.compile(r"^using\s+(static\s+)?[A-Za-z_][\w.]*(\s*=\s*[\w.<>, ]+)?\s*;\s*(//.*)?$")
TYPE_DECLARATION = re.compile(
    r"^(\[[^\]]*\]\s*)*((public|internal|private|file|sealed|static|abstract|partial|readonly|ref|unsafe)\s+)*"
    r"(class|struct|record|interface|enum)\s+[A-Za-z_]")
ATTRIBUTE_LINE = re.compile(r"^\[[^\]]*\]\s*$")


def pages(root):
    """README.md and every .md under docs/, in a stable order."""
    found = []
    if os.path.isfile(os.path.join(root, "README.md")):
        found.append("README.md")
    for directory, _, files in os.walk(os.path.join(root, "docs")):
        for name in files:
            if name.endswith(".md"):
                found.append(os.path.relpath(os.path.join(directory, name), root).replace(os.sep, "/"))
    return sorted(found, key=lambda p: (p != "README.md", p))


def blocks(text):
    """Yields (first_line_number, lines, context) for each C# block; line numbers are 1-based."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        fence = match.group("fence")
        language = match.group("info").strip().split(" ")[0].lower() if match.group("info").strip() else ""
        indent = len(match.group("indent"))
        start = i + 1
        j = start
        while j < len(lines) and not re.match(r"^ {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$", lines[j]):
            j += 1
        if language in LANGUAGES:
            context = None
            k = i - 1
            while k >= 0 and lines[k].strip() == "":
                k -= 1
            if k >= 0:
                context_match = CONTEXT.match(lines[k])
                if context_match:
                    context = context_match.group("params")
            body = [line[indent:] if line[:indent].strip() == "" else line for line in lines[start:j]]
            yield start + 1, body, context
        i = j + 1


def split_block(body):
    """Splits a block into (using directives, statements, type declarations), each a list of (offset, line)."""
    usings, statements, types = [], [], []
    in_types = False
    pending_attributes = []
    for offset, line in enumerate(body):
        if in_types:
            types.append((offset, line))
        elif USING_DIRECTIVE.match(line):
            usings.append((offset, line))
        elif ATTRIBUTE_LINE.match(line):
            pending_attributes.append((offset, line))
        elif TYPE_DECLARATION.match(line):
            in_types = True
            types.extend(pending_attributes)
            pending_attributes = []
            types.append((offset, line))
        else:
            statements.extend(pending_attributes)
            pending_attributes = []
            statements.append((offset, line))
    statements.extend(pending_attributes)
    return usings, statements, types


def with_lines(out, numbered_lines, path):
    """Appends (line number in the page, line) pairs with a #line directive wherever the numbering
    jumps, so the compiler names the page's own lines; then returns to the file's own numbering."""
    previous = None
    for number_in_page, line in numbered_lines:
        if previous is None or number_in_page != previous + 1:
            out.append(f'#line {number_in_page} "{path}"')
        out.append(line)
        previous = number_in_page
    out.append("#line default")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: extract_snippets.py REPO_ROOT OUTPUT_DIR")
    root, output = sys.argv[1], sys.argv[2]
    os.makedirs(output, exist_ok=True)
    compiled_total = skipped_total = 0
    for page in pages(root):
        with open(os.path.join(root, page), encoding="utf-8") as handle:
            found = list(blocks(handle.read()))
        if not found:
            continue
        path = os.path.abspath(os.path.join(root, page))
        page_usings = []
        parts = []
        skipped = 0
        for first_line, body, context in found:
            if body and NOT_COMPILED.match(body[0]):
                skipped += 1
                continue
            usings, statements, types = split_block(body)
            for offset, line in usings:
                page_usings.append((first_line + offset, line))
            if context is not None and re.match(r"^continues\s*(,|$)", context.strip()):
                if not parts:
                    sys.exit(f"extract_snippets: {page}:{first_line}: a block marked 'continues' with no block before it")
                previous_first, previous_statements, previous_types, previous_context = parts[-1]
                extra = context.strip()[len("continues"):].lstrip(" ,")
                if extra:
                    parts[-1] = (previous_first, previous_statements, previous_types, ", ".join(c for c in (previous_context, extra) if c))
                # Offsets are relative to each block's first line: keep the absolute line with each.
                previous_statements.extend((first_line + offset, line) for offset, line in statements)
                previous_types.extend((first_line + offset, line) for offset, line in types)
                continue
            parts.append((first_line, [(first_line + offset, line) for offset, line in statements],
                          [(first_line + offset, line) for offset, line in types], context))
        seen = set()
        unique_usings = []
        for line_number, line in page_usings:
            key = line.split("//")[0].strip()
            if key not in seen:
                seen.add(key)
                unique_usings.append((line_number, line))
        slug = re.sub(r"[^A-Za-z0-9]+", "_", page[:-3]).strip("_")
        for number, (first_line, statements, types, context) in enumerate(parts, 1):
            out = ["// <auto-generated/> from " + page + " by scripts/extract_snippets.py", "#nullable enable"]
            for line_number, line in unique_usings:
                out.append(f'#line {line_number} "{path}"')
                out.append(line)
            out.append("#line default")
            out.append(f"namespace Snippets.{slug}_{number}")
            out.append("{")
            parameters = "string[] args" + (", " + context if context else "")
            out.append("    public static partial class Snippet")
            out.append("    {")
            out.append(f"        public static async System.Threading.Tasks.Task Run({parameters})")
            out.append("        {")
            out.append("            await System.Threading.Tasks.Task.CompletedTask;")
            with_lines(out, statements, path)
            out.append("        }")
            out.append("    }")
            with_lines(out, types, path)
            out.append("}")
            with open(os.path.join(output, f"{slug}_{number}.cs"), "w", encoding="utf-8") as handle:
                handle.write("\n".join(out) + "\n")
        compiled_total += len(parts)
        skipped_total += skipped
        print(f"snippets: {page}: {len(parts)} compiled" + (f", {skipped} marked not compiled" if skipped else ""))
    print(f"snippets: {compiled_total} blocks to compile, {skipped_total} marked not compiled")


if __name__ == "__main__":
    main()
