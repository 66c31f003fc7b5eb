// Tests/ContentEncoding/Support/SourceStreamBase.cs for .NET Framework: its Stream has no span or
// Memory overloads to override, the library's netstandard2.0 RecordStreamBase declares them, and the
// library's streams call them through it (Platform/NetStandard/RecordLayerBases.cs).

global using SourceStreamBase = Cryptography.ContentEncoding.RecordStreamBase;
