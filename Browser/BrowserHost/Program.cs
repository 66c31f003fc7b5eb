// The browser test host: the template's start-up, App and Layout kept as `dotnet new blazorwasm`
// made them (a host without them failed to start with "memory access out of bounds").
using BrowserHost;
using Microsoft.AspNetCore.Components.Web;
using Microsoft.AspNetCore.Components.WebAssembly.Hosting;

var builder = WebAssemblyHostBuilder.CreateDefault(args);
builder.RootComponents.Add<App>("#app");
builder.RootComponents.Add<HeadOutlet>("head::after");

await builder.Build().RunAsync().ConfigureAwait(false);
