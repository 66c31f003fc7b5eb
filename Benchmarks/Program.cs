// Entry point: BenchmarkDotNet's switcher, so `dotnet run -c Release -- --filter *` picks benchmarks.

using BenchmarkDotNet.Running;

namespace Benchmarks;

public static class Program
{
    public static void Main(string[] args) => BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args);
}
