// The bases of the record layer tests' own streams, contents and handlers, which override members that
// newer .NET's Stream, MemoryStream, HttpContent and HttpMessageHandler have and .NET Framework's lack
// (span and Memory overloads, synchronous serialisation and Send). On net10.0 they are those types. The
// Mono leg's copy of this file (Tests.Mono/Support/FrameworkBases.cs) declares the missing members, so the
// same test sources compile for net472; which of them .NET Framework's own code calls is said there.

global using HttpContentBase = System.Net.Http.HttpContent;
global using HttpMessageHandlerBase = System.Net.Http.HttpMessageHandler;
global using MemoryStreamBase = System.IO.MemoryStream;
global using SourceStreamBase = System.IO.Stream;
