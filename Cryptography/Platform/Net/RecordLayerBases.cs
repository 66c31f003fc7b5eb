// The record layer's base types, for net10.0: the framework's own. The netstandard2.0 build has types
// of these names (Platform/NetStandard/RecordLayerBases.cs) that add the members .NET Standard 2.0's
// Stream, HttpContent and DelegatingHandler lack, so ContentEncoding/ is the same source on both
// targets. An alias is no type: the net10.0 build's public API and metadata are what they were.

global using RecordStreamBase = System.IO.Stream;
global using RecordHttpContentBase = System.Net.Http.HttpContent;
global using RecordHandlerBase = System.Net.Http.DelegatingHandler;
