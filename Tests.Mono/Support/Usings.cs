// The library's netstandard2.0 build binds [MethodImpl(MethodImplOptions.X)] to a class of constants,
// Cryptography.MethodImplOptions, since that target's enum has no AggressiveOptimization
// (Platform/NetStandard/Polyfills.cs). The tests see that class through InternalsVisibleTo beside the
// framework's enum; this alias picks the class, so their attributes compile unchanged as well.
global using MethodImplOptions = Cryptography.MethodImplOptions;

// The same for HttpRequestException: the library's netstandard2.0 build has an internal type of that name
// (.NET 8's constructor with an error and a status code), derived from .NET Framework's. In the tests the
// name means the framework's, as on net10.0; Polyfills.cs reads the library's extra properties through it.
global using HttpRequestException = System.Net.Http.HttpRequestException;
