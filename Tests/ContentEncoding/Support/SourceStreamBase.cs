// The base of the record layer tests' own streams: Stream on net10.0. The Mono leg's copy of this
// file (Tests.Mono/Support/SourceStreamBase.cs) names the library's RecordStreamBase, the
// netstandard2.0 Stream with the span and Memory overloads these streams override.

global using SourceStreamBase = System.IO.Stream;
