#!/usr/bin/env bash
# Compiles every C# code block of README.md and docs/**/*.md against the library, so a snippet
# cannot drift from the API (issue 50, item 5). scripts/extract_snippets.py turns each block into a
# method of a throwaway project (how blocks, their inputs and the "// not compiled" marker work is
# in its header); this script writes that project in a temporary folder outside the repository (so
# the repository's Directory.Build.props, with its analyzers, does not apply to it), references
# every library project the repository packs (a .csproj with a PackageId that is not a dotnet tool:
# Cryptography/ and any package beside it) and ASP.NET Core's shared framework (for server-side
# snippets), builds it, and fails on any compiler error, reported at the page and line it came from.
#
# Usage: scripts/check-snippets.sh [WORK_DIR]   (WORK_DIR is kept; by default a temporary one is removed)
# .ci/run runs it as its own step. About a minute here, most of it building the library.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1

if [ $# -ge 1 ]; then
  work=$1
  rm -rf "$work"
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

python3 scripts/extract_snippets.py "$root" "$work/src"

references=""
for project in */*.csproj; do
  if grep -q '<PackageId>' "$project" && ! grep -q '<PackAsTool>true</PackAsTool>' "$project"; then
    references+="    <ProjectReference Include=\"$root/$project\" />"$'\n'
    echo "snippets: referencing $project"
  fi
done
[ -n "$references" ] || { echo "check-snippets: no library project (a .csproj with a PackageId) found" >&2; exit 1; }

# A new app's defaults (implicit usings, nullable), as `dotnet new console` has them, plus the usings
# `dotnet new web` adds (Microsoft.NET.Sdk.Web's), so a server-side snippet reads as it would in an
# ASP.NET Core app's Program.cs.
cat > "$work/Snippets.csproj" << EOF
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <TargetFramework>net10.0</TargetFramework>
    <OutputType>Library</OutputType>
    <ImplicitUsings>enable</ImplicitUsings>
    <Nullable>enable</Nullable>
    <LangVersion>latest</LangVersion>
    <TreatWarningsAsErrors>false</TreatWarningsAsErrors>
    <EnableDefaultCompileItems>false</EnableDefaultCompileItems>
    <IsPackable>false</IsPackable>
  </PropertyGroup>
  <ItemGroup>
    <FrameworkReference Include="Microsoft.AspNetCore.App" />
    <Compile Include="src/*.cs" />
    <Using Include="Microsoft.AspNetCore.Builder" />
    <Using Include="Microsoft.AspNetCore.Hosting" />
    <Using Include="Microsoft.AspNetCore.Http" />
    <Using Include="Microsoft.AspNetCore.Routing" />
    <Using Include="Microsoft.Extensions.Configuration" />
    <Using Include="Microsoft.Extensions.DependencyInjection" />
    <Using Include="Microsoft.Extensions.Hosting" />
    <Using Include="Microsoft.Extensions.Logging" />
    <Using Include="System.Net.Http.Json" />
  </ItemGroup>
  <ItemGroup>
$references  </ItemGroup>
</Project>
EOF

if dotnet build "$work/Snippets.csproj" -c Release -nologo -clp:NoSummary -p:WarningLevel=0 > "$work/build.log" 2>&1; then
  echo "snippets: every C# block of README.md and docs/ compiles"
else
  # The #line directives make the compiler name the page and line: keep each error once.
  grep -E ': error ' "$work/build.log" | sed -E "s#^$root/##; s# \[[^]]*\]\$##" | sort -u >&2 || tail -n 40 "$work/build.log" >&2
  echo "check-snippets: a C# block of README.md or docs/ does not compile (errors above, at the page and line)" >&2
  exit 1
fi
