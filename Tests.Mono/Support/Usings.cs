// The library's netstandard2.0 build binds [MethodImpl(MethodImplOptions.X)] to a class of constants,
// Cryptography.MethodImplOptions, since that target's enum has no AggressiveOptimization
// (Platform/NetStandard/Polyfills.cs). The tests see that class through InternalsVisibleTo beside the
// framework's enum; this alias picks the class, so their attributes compile unchanged as well.
global using MethodImplOptions = Cryptography.MethodImplOptions;
