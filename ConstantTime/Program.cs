// dudect-style constant-time check of every backend this machine has (see ConstantTime.csproj).
//
// For each backend and case, measurements come in batches: for each measurement a class is drawn at
// random (0 = fixed input, 1 = random input; for the rejection case 0 = tag wrong in its first byte,
// 1 = wrong in its last byte), all inputs of the batch are prepared first (each measurement has its own
// slot in the case's input pools, so the two classes differ only in the bytes), then each call is timed
// alone with Stopwatch.GetTimestamp. A control case with a known early exit checks that the harness can
// see a difference of a few nanoseconds. Welch's t statistic compares the two classes' times: over all
// measurements, and, as dudect does, over the measurements below each of a set of percentiles (taken
// from the first batch), which removes the long tail that interrupts, the GC and other processes add.
// The largest |t| over those tests is reported; dudect's threshold is 4.5 (above it, "the timing
// depends on the class" with overwhelming confidence; below it, no leak was detected at this number
// of measurements, which is evidence, not proof).
//
// Usage: ConstantTime [--measurements N] [--backend Name] [--case Name] [--length bytes] [--fixed zero|random]
//                     [--vary both|key|message|none] [--second random|fixed]
//
// --vary says which secrets the fixed class holds fixed (the others are drawn at random in both
// classes): both (dudect's test), the key only, the message only, or none, an A/A test in which the
// two classes are drawn alike, so that a crossing there is the harness's or the machine's, not the code's.
// --second fixed makes the second class fixed too, at other values (drawn once at random): fixed
// against fixed, which tells a dependence on the values from one on repeating the same input.
// --case KeccakControl times a constant-time workload that is no backend's (see that class) on the
// same classes, and says whether it crossed; it decides nothing (exit code 0). --case PartDerive,
// PartExpand, PartPolyval, PartCtr or PartBlock (with --backend Portable) times one part of Portable's
// encryption alone on Encrypt's classes (class PortablePart).

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Runtime;
using System.Runtime.CompilerServices;
using System.Security.Cryptography;
using Cryptography;
using Cryptography.Internal;

namespace ConstantTime;

public static class Program
{
    private const int BatchSize = 10_000;

    public static int Main(string[] args)
    {
        if (args is ["--secret-flow"])
        {
            return SecretFlow.Run();
        }

        long measurements = 1_000_000;
        int length = 64;
        string? onlyBackend = null;
        string? onlyCase = null;
        bool fixedRandom = false;
        string vary = "both";
        bool secondFixed = false;
        for (int i = 0; i + 1 < args.Length; i += 2)
        {
            switch (args[i])
            {
                case "--measurements": measurements = long.Parse(args[i + 1], System.Globalization.CultureInfo.InvariantCulture); break;
                case "--length": length = int.Parse(args[i + 1], System.Globalization.CultureInfo.InvariantCulture); break;
                case "--backend": onlyBackend = args[i + 1]; break;
                case "--case": onlyCase = args[i + 1]; break;
                case "--fixed" when args[i + 1] is "zero" or "random": fixedRandom = args[i + 1] == "random"; break;
                case "--vary" when args[i + 1] is "both" or "key" or "message" or "none": vary = args[i + 1]; break;
                case "--second" when args[i + 1] is "random" or "fixed": secondFixed = args[i + 1] == "fixed"; break;
                default: Console.Error.WriteLine($"unknown option {args[i]}"); return 2;
            }
        }

        Console.WriteLine($"# dudect-style timing: {measurements} measurements per case, plaintext {length} bytes, associated data 16 bytes, AES-256 keys");
        Console.WriteLine($"# timer: Stopwatch.GetTimestamp, {Stopwatch.Frequency} ticks/s; runtime {Environment.Version}; {Environment.ProcessorCount} logical CPUs");
        if (secondFixed)
        {
            RandomNumberGenerator.Fill(PooledCase.SecondInput);
            PooledCase.SecondIsFixed = true;
            Console.WriteLine("# second class: fixed too, one other random key and message drawn at the start");
        }

        PooledCase.FixedKey = vary is "both" or "key";
        PooledCase.FixedMessage = vary is "both" or "message";
        if (vary != "both")
        {
            Console.WriteLine(vary == "none"
                ? "# A/A test: both classes draw key and message at random; a crossing is not the code's"
                : $"# the fixed class holds only the {vary} fixed; the other secret is random in both classes");
        }

        Console.WriteLine("| Backend | Case | Measurements | max abs(t) | at crop | t uncropped | median ticks (fixed / random) | verdict |");
        Console.WriteLine("|---|---|---|---|---|---|---|---|");

        if (fixedRandom)
        {
            // The fixed class's key and message drawn once at random instead of all zero: tells a
            // dependence on zero data from one on the same data every call.
            RandomNumberGenerator.Fill(PooledCase.FixedInput);
            Console.WriteLine("# fixed class: one random key and message, drawn at the start");
        }

        PortablePart.Requested = onlyCase?.StartsWith("Part", StringComparison.Ordinal) == true;
        GCSettings.LatencyMode = GCLatencyMode.SustainedLowLatency;
        bool anyLeak = false;
        if (onlyCase is null or "EarlyExitControl")
        {
            Result r = Measure(new EarlyExitControl(), measurements);
            bool seen = r.MaxT > 4.5;
            anyLeak |= !seen;
            Console.WriteLine($"| (harness) | EarlyExitControl | {r.Count} | {r.MaxT:F2} | {r.Crop} | {r.UncroppedT:F2} | {r.Median0} / {r.Median1} | {(seen ? "seen, as it must be" : "NOT SEEN: this run could not see a leak of its size")} |");
        }

        if (onlyCase is "KeccakControl")
        {
            Result r = Measure(new KeccakControl(), measurements);
            Console.WriteLine($"| (control) | KeccakControl | {r.Count} | {r.MaxT:F2} | {r.Crop} | {r.UncroppedT:F2} | {r.Median0} / {r.Median1} | {(r.MaxT > 4.5 ? "crossed 4.5 (a constant-time workload: the machine's)" : "under 4.5")} |");
            return 0;
        }

        foreach (Backend backend in BackendsToMeasure())
        {
            if (onlyBackend is not null && backend.Id.ToString() != onlyBackend)
            {
                continue;
            }

            foreach (Case c in Cases(backend, length))
            {
                if (onlyCase is not null && c.Name != onlyCase)
                {
                    continue;
                }

                Result r = Measure(c, measurements);
                bool leak = r.MaxT > 4.5;
                anyLeak |= leak;
                Console.WriteLine($"| {backend.Id} | {c.Name} | {r.Count} | {r.MaxT:F2} | {r.Crop} | {r.UncroppedT:F2} | {r.Median0} / {r.Median1} | {(leak ? "LEAK? above 4.5" : "no leak detected")} |");
            }
        }

        // 1: a case crossed 4.5, or the control did not.
        return anyLeak ? 1 : 0;
    }

    // Every backend this machine runs. Portable (the browser's and the netstandard2.0 build's backend
    // too) is plain C# over 64-bit integers: this tool measures the code .NET's JIT compiles from it;
    // how the browser's interpreter or Mono's JIT times it is not measured.
    internal static IEnumerable<Backend> BackendsToMeasure()
    {
        foreach (AesGcmSivBackend id in Backends.Supported())
        {
            yield return Backends.Get(id);
        }
    }

    // A case owns pools of inputs with one slot per measurement of a batch. Prepare writes a slot's
    // inputs for a class (untimed, for the whole batch before any call is timed); Run(slot) is the timed
    // call. Slot i sits at the same address whatever its class, every slot is written in the same
    // preparation pass, and outputs go to one buffer shared by both classes: the classes differ in the
    // bytes alone. (The tool before this created an instance and fresh arrays per measurement; with
    // those, the AES-NI backend's 1 KiB Encrypt crossed 4.5 at 10^7 measurements in every run, quiet or
    // not, though its AES and carry-less multiply are instructions: the harness, not the code.)
    private abstract class Case(string name)
    {
        public string Name => name;

        public abstract void Prepare(int slot, int cls);

        public abstract void Run(int slot);
    }

    // The inputs every case draws from: per slot a key schedule and a message (plaintext, or
    // ciphertext and tag); the fixed class's values are FixedInput's (all zero, dudect's usual choice,
    // or --fixed random), the random class's fresh from the CSPRNG for every slot.
    private abstract class PooledCase : Case
    {
        protected readonly Backend Backend;
        protected readonly int Length;
        protected readonly AesKeySchedule[] Schedules = new AesKeySchedule[BatchSize];
        protected readonly byte[] Keys = new byte[32 * BatchSize];
        protected readonly byte[] Messages;
        protected readonly byte[] Tags = new byte[16 * BatchSize];
        protected readonly byte[] Output;
        protected readonly byte[] TagOutput = new byte[16];
        // The fixed class's key (32 bytes), then its message: all zero unless --fixed random.
        public static readonly byte[] FixedInput = new byte[32 + (1 << 20)];
        // --second fixed: what the "random" draws copy instead, the same for every slot.
        public static readonly byte[] SecondInput = new byte[32 + (1 << 20)];
        public static bool SecondIsFixed;
        // Which secrets class 0 holds fixed (--vary); the others it draws at random, as class 1 does.
        public static bool FixedKey = true;
        public static bool FixedMessage = true;
        protected static readonly byte[] Nonce = new byte[12];
        protected static readonly byte[] AssociatedData = new byte[16];

        protected PooledCase(string name, Backend backend, int length)
            : base(name)
        {
            Backend = backend;
            Length = length;
            Messages = new byte[length * BatchSize];
            Output = new byte[length];
        }

        protected Span<byte> Key(int slot) => Keys.AsSpan(32 * slot, 32);

        protected Span<byte> Message(int slot) => Messages.AsSpan(Length * slot, Length);

        protected Span<byte> Tag(int slot) => Tags.AsSpan(16 * slot, 16);

        // Writes the slot's key (fixed or random) and expands it into the slot's schedule.
        protected void SetKey(int slot, bool random)
        {
            if (random && !SecondIsFixed)
            {
                RandomNumberGenerator.Fill(Key(slot));
            }
            else
            {
                (random ? SecondInput : FixedInput).AsSpan(0, 32).CopyTo(Key(slot));
            }

            Backend.ExpandKey(Key(slot), ref Schedules[slot]);
        }

        protected void SetMessage(int slot, bool random)
        {
            if (random && !SecondIsFixed)
            {
                RandomNumberGenerator.Fill(Message(slot));
            }
            else
            {
                (random ? SecondInput : FixedInput).AsSpan(32, Length).CopyTo(Message(slot));
            }
        }

        // Turns the slot's plaintext into its ciphertext and tag, in place, under the slot's key.
        protected void Seal(int slot) =>
            Backend.Encrypt(in Schedules[slot], 14, Nonce, Message(slot), Message(slot), Tag(slot), AssociatedData);
    }

    // Secret: the key (its expansion, as the constructor runs it).
    private sealed class KeySetup(Backend backend, int length) : PooledCase("KeySetup", backend, length)
    {
        public override void Prepare(int slot, int cls)
        {
            if (cls == 0 && FixedKey)
            {
                FixedInput.AsSpan(0, 32).CopyTo(Key(slot));
            }
            else if (SecondIsFixed)
            {
                SecondInput.AsSpan(0, 32).CopyTo(Key(slot));
            }
            else
            {
                RandomNumberGenerator.Fill(Key(slot));
            }
        }

        public override void Run(int slot) => Backend.ExpandKey(Key(slot), ref Schedules[slot]);
    }

    // Secret: key and plaintext. Nonce and associated data are public and the same in both classes.
    private sealed class Encrypt(Backend backend, int length) : PooledCase("Encrypt", backend, length)
    {
        public override void Prepare(int slot, int cls)
        {
            SetKey(slot, cls == 1 || !FixedKey);
            SetMessage(slot, cls == 1 || !FixedMessage);
        }

        public override void Run(int slot) =>
            Backend.Encrypt(in Schedules[slot], 14, Nonce, Message(slot), Output, TagOutput, AssociatedData);
    }

    // Portable's 64-byte encryption in parts, each timed alone on the same classes as Encrypt (the key
    // and the message fixed or random): which part carries the scalar AES's open finding
    // (docs/testing.md). The slot's key stands in for every secret a part takes (the derived key, H, a
    // counter block), as they are in the fixed class all alike and in the random one all different.
    // Only with --case PartDerive, PartExpand, PartPolyval, PartCtr or PartBlock: an investigation, not a check.
    private sealed class PortablePart(string part, Backend backend, int length) : PooledCase("Part" + part, backend, length)
    {
        public static bool Requested;

        private AesKeySchedule _messageSchedule;
        private PolyvalKey _polyvalKey;
        private readonly byte[] _derived = new byte[96];
        private readonly byte[] _accumulator = new byte[16];

        public override void Prepare(int slot, int cls)
        {
            SetKey(slot, cls == 1 || !FixedKey);
            SetMessage(slot, cls == 1 || !FixedMessage);
        }

        public override void Run(int slot)
        {
            switch (part)
            {
                case "Derive":
                    GcmSiv<AesPortable, PolyvalPortable>.DeriveKeyMaterial(in Schedules[slot], 14, Nonce, _derived);
                    break;
                case "Expand":
                    default(AesPortable).ExpandKey(Key(slot), ref _messageSchedule);
                    break;
                case "Polyval":
                    default(PolyvalPortable).Init(Key(slot)[..16], Length / 16, ref _polyvalKey);
                    default(PolyvalPortable).Update(in _polyvalKey, _accumulator, Message(slot));
                    break;
                case "Ctr":
                    default(AesPortable).Ctr32(in Schedules[slot], 14, Key(slot)[..16], Message(slot), Output);
                    break;
                case "Block":
                    System.Runtime.Intrinsics.Vector128.CopyTo(default(AesPortable).EncryptBlock(in Schedules[slot], 14, System.Runtime.Intrinsics.Vector128.Create<byte>(Message(slot)[..16])), Output.AsSpan(0, 16));
                    break;
            }
        }
    }

    // Secret: key and plaintext, behind a valid ciphertext and tag.
    private sealed class Decrypt(Backend backend, int length) : PooledCase("Decrypt", backend, length)
    {
        public override void Prepare(int slot, int cls)
        {
            SetKey(slot, cls == 1 || !FixedKey);
            SetMessage(slot, cls == 1 || !FixedMessage);
            Seal(slot);
        }

        public override void Run(int slot)
        {
            if (!Backend.Decrypt(in Schedules[slot], 14, Nonce, Message(slot), Tag(slot), Output, AssociatedData))
            {
                throw new InvalidOperationException("a valid message was rejected");
            }
        }
    }

    // The rejection path: a random key and plaintext for both classes; the tag is wrong in its first
    // byte (class 0) or its last byte (class 1). An early-exit comparison would tell them apart.
    // TryDecryptReject times the backend's call, which returns false; DecryptReject adds the exception
    // that AesGcmSiv.Decrypt throws then, as a caller sees it (microseconds, with a spread that hides
    // a difference of a few nanoseconds: TryDecryptReject is the sharper test of the comparison).
    private sealed class Reject(Backend backend, int length, bool throws) : PooledCase(throws ? "DecryptReject" : "TryDecryptReject", backend, length)
    {
        public override void Prepare(int slot, int cls)
        {
            SetKey(slot, random: true);
            SetMessage(slot, random: true);
            Seal(slot);
            Tag(slot)[cls == 0 ? 0 : 15] ^= 1;
        }

        public override void Run(int slot)
        {
            if (Backend.Decrypt(in Schedules[slot], 14, Nonce, Message(slot), Tag(slot), Output, AssociatedData))
            {
                throw new InvalidOperationException("a tampered tag was accepted");
            }

            if (throws)
            {
                try
                {
                    throw new AuthenticationTagMismatchException();
                }
                catch (AuthenticationTagMismatchException)
                {
                }
            }
        }
    }

    // A second kind of control, for the scalar AES's open finding (docs/testing.md: Portable's
    // fixed-against-random cases cross now and then, and only when one class repeats one input). This
    // workload is constant time by construction and does the same kind of work as a bitsliced AES
    // (64-bit AND, NOT, XOR and rotations; no multiply, no branch or memory index on data): one
    // Keccak-f[1600] permutation, the SHA-3 one, of the same classes of key and message as Encrypt
    // (all zero, or as --fixed, --vary and --second set them, against random). Written with loops and
    // indices, it takes about as long as Portable's 64-byte encryption (3.3 µs here). It is no backend's
    // code. If it crosses 4.5 about as often as Portable does, the crossing is how this machine times
    // the same instructions on repeated data, not a flaw of the library's code; if it never does, that
    // explanation is weakened. Runs only with --case KeccakControl.
    private sealed class KeccakControl : Case
    {
                private const int Permutations = 8;
        private readonly byte[] _inputs = new byte[96 * BatchSize]; // per slot: key (32), message (64)

        public KeccakControl()
            : base("KeccakControl")
        {
            // The permutation checked once: SHA3-256 of the empty message (FIPS 202; one padded block).
            Span<ulong> state = stackalloc ulong[25];
            state.Clear();
            state[0] = 0x06;
            state[16] = 0x80UL << 56; // byte 135, the last of SHA3-256's 136-byte rate
            KeccakF1600(state);
            Span<byte> digest = System.Runtime.InteropServices.MemoryMarshal.AsBytes(state)[..32];
            if (BitConverter.ToString(digest.ToArray()).Replace("-", string.Empty) != "A7FFC6F8BF1ED76651C14756A061D662F580FF4DE43B49FA82D80A4B80F8434A")
            {
                throw new InvalidOperationException("Keccak-f[1600] does not give SHA3-256(\"\")");
            }
        }

        public override void Prepare(int slot, int cls)
        {
            Span<byte> input = _inputs.AsSpan(96 * slot, 96);
            bool randomKey = cls == 1 || !PooledCase.FixedKey;
            bool randomMessage = cls == 1 || !PooledCase.FixedMessage;
            Fill(input[..32], randomKey, PooledCase.FixedInput.AsSpan(0, 32), PooledCase.SecondInput.AsSpan(0, 32));
            Fill(input[32..], randomMessage, PooledCase.FixedInput.AsSpan(32, 64), PooledCase.SecondInput.AsSpan(32, 64));
        }

        private static void Fill(Span<byte> to, bool random, ReadOnlySpan<byte> fixedValue, ReadOnlySpan<byte> second)
        {
            if (random && !PooledCase.SecondIsFixed)
            {
                RandomNumberGenerator.Fill(to);
            }
            else
            {
                (random ? second : fixedValue).CopyTo(to);
            }
        }

        public override void Run(int slot) => Sink = Permute(_inputs.AsSpan(96 * slot, 96));

        public static ulong Sink;

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static ulong Permute(ReadOnlySpan<byte> input)
        {
            Span<ulong> a = stackalloc ulong[25];
            a.Clear();
            System.Runtime.InteropServices.MemoryMarshal.Cast<byte, ulong>(input).CopyTo(a);
            for (int i = 0; i < Permutations; i++)
            {
                KeccakF1600(a);
            }

            return a[0];
        }

        // Round constants and rotation offsets of FIPS 202 (facts of the standard).
        private static readonly ulong[] RoundConstants =
        [
            0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000,
            0x000000000000808B, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
            0x000000000000008A, 0x0000000000000088, 0x0000000080008009, 0x000000008000000A,
            0x000000008000808B, 0x800000000000008B, 0x8000000000008089, 0x8000000000008003,
            0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
            0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
        ];

        // A rotation (net472, which ConstantTime.Mono builds for, has no BitOperations); the JIT makes it one instruction.
        private static ulong Rotl(ulong value, int count) => (value << count) | (value >> (64 - count));

        // The rotation offsets of FIPS 202 are the constants in the rho-and-pi step. Lanes in locals, one
        // round written out, so that the JIT keeps the state in registers as far as x64 has them: dense
        // ALU work, as in the bitsliced AES.
        internal static void KeccakF1600(Span<ulong> a)
        {
            ulong a00 = a[0]; ulong a10 = a[1]; ulong a20 = a[2]; ulong a30 = a[3]; ulong a40 = a[4];
            ulong a01 = a[5]; ulong a11 = a[6]; ulong a21 = a[7]; ulong a31 = a[8]; ulong a41 = a[9];
            ulong a02 = a[10]; ulong a12 = a[11]; ulong a22 = a[12]; ulong a32 = a[13]; ulong a42 = a[14];
            ulong a03 = a[15]; ulong a13 = a[16]; ulong a23 = a[17]; ulong a33 = a[18]; ulong a43 = a[19];
            ulong a04 = a[20]; ulong a14 = a[21]; ulong a24 = a[22]; ulong a34 = a[23]; ulong a44 = a[24];
            for (int round = 0; round < 24; round++)
            {
                ulong c0 = a00 ^ a01 ^ a02 ^ a03 ^ a04;
                ulong c1 = a10 ^ a11 ^ a12 ^ a13 ^ a14;
                ulong c2 = a20 ^ a21 ^ a22 ^ a23 ^ a24;
                ulong c3 = a30 ^ a31 ^ a32 ^ a33 ^ a34;
                ulong c4 = a40 ^ a41 ^ a42 ^ a43 ^ a44;
                ulong d0 = c4 ^ Rotl(c1, 1);
                ulong d1 = c0 ^ Rotl(c2, 1);
                ulong d2 = c1 ^ Rotl(c3, 1);
                ulong d3 = c2 ^ Rotl(c4, 1);
                ulong d4 = c3 ^ Rotl(c0, 1);
                ulong b00 = a00 ^ d0;
                ulong b13 = Rotl(a01 ^ d0, 36);
                ulong b21 = Rotl(a02 ^ d0, 3);
                ulong b34 = Rotl(a03 ^ d0, 41);
                ulong b42 = Rotl(a04 ^ d0, 18);
                ulong b02 = Rotl(a10 ^ d1, 1);
                ulong b10 = Rotl(a11 ^ d1, 44);
                ulong b23 = Rotl(a12 ^ d1, 10);
                ulong b31 = Rotl(a13 ^ d1, 45);
                ulong b44 = Rotl(a14 ^ d1, 2);
                ulong b04 = Rotl(a20 ^ d2, 62);
                ulong b12 = Rotl(a21 ^ d2, 6);
                ulong b20 = Rotl(a22 ^ d2, 43);
                ulong b33 = Rotl(a23 ^ d2, 15);
                ulong b41 = Rotl(a24 ^ d2, 61);
                ulong b01 = Rotl(a30 ^ d3, 28);
                ulong b14 = Rotl(a31 ^ d3, 55);
                ulong b22 = Rotl(a32 ^ d3, 25);
                ulong b30 = Rotl(a33 ^ d3, 21);
                ulong b43 = Rotl(a34 ^ d3, 56);
                ulong b03 = Rotl(a40 ^ d4, 27);
                ulong b11 = Rotl(a41 ^ d4, 20);
                ulong b24 = Rotl(a42 ^ d4, 39);
                ulong b32 = Rotl(a43 ^ d4, 8);
                ulong b40 = Rotl(a44 ^ d4, 14);
                a00 = b00 ^ (~b10 & b20);
                a10 = b10 ^ (~b20 & b30);
                a20 = b20 ^ (~b30 & b40);
                a30 = b30 ^ (~b40 & b00);
                a40 = b40 ^ (~b00 & b10);
                a01 = b01 ^ (~b11 & b21);
                a11 = b11 ^ (~b21 & b31);
                a21 = b21 ^ (~b31 & b41);
                a31 = b31 ^ (~b41 & b01);
                a41 = b41 ^ (~b01 & b11);
                a02 = b02 ^ (~b12 & b22);
                a12 = b12 ^ (~b22 & b32);
                a22 = b22 ^ (~b32 & b42);
                a32 = b32 ^ (~b42 & b02);
                a42 = b42 ^ (~b02 & b12);
                a03 = b03 ^ (~b13 & b23);
                a13 = b13 ^ (~b23 & b33);
                a23 = b23 ^ (~b33 & b43);
                a33 = b33 ^ (~b43 & b03);
                a43 = b43 ^ (~b03 & b13);
                a04 = b04 ^ (~b14 & b24);
                a14 = b14 ^ (~b24 & b34);
                a24 = b24 ^ (~b34 & b44);
                a34 = b34 ^ (~b44 & b04);
                a44 = b44 ^ (~b04 & b14);
                a00 ^= RoundConstants[round];
            }
            a[0] = a00; a[1] = a10; a[2] = a20; a[3] = a30; a[4] = a40;
            a[5] = a01; a[6] = a11; a[7] = a21; a[8] = a31; a[9] = a41;
            a[10] = a02; a[11] = a12; a[12] = a22; a[13] = a32; a[14] = a42;
            a[15] = a03; a[16] = a13; a[17] = a23; a[18] = a33; a[19] = a43;
            a[20] = a04; a[21] = a14; a[22] = a24; a[23] = a34; a[24] = a44;
        }
    }

    // The harness's own check that it can see a small difference: a byte-by-byte comparison of 16
    // bytes that stops at the first difference, given pairs that differ in their first byte (class 0)
    // or their last (class 1): 15 loop iterations apart, a few nanoseconds. It must cross 4.5; a run in
    // which it does not could not have seen a leak of that size either.
    private sealed class EarlyExitControl() : Case("EarlyExitControl")
    {
        private readonly byte[] _pairs = new byte[32 * BatchSize];

        public override void Prepare(int slot, int cls)
        {
            Span<byte> pair = _pairs.AsSpan(32 * slot, 32);
            RandomNumberGenerator.Fill(pair[..16]);
            pair[..16].CopyTo(pair[16..]);
            pair[16 + (cls == 0 ? 0 : 15)] ^= 1;
        }

        public override void Run(int slot) => FirstDifference(_pairs.AsSpan(32 * slot, 16), _pairs.AsSpan((32 * slot) + 16, 16));

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static int FirstDifference(ReadOnlySpan<byte> a, ReadOnlySpan<byte> b)
        {
            for (int i = 0; i < a.Length; i++)
            {
                if (a[i] != b[i])
                {
                    return i;
                }
            }

            return -1;
        }
    }

    private static IEnumerable<Case> Cases(Backend backend, int length)
    {
        yield return new KeySetup(backend, length);
        yield return new Encrypt(backend, length);
        yield return new Decrypt(backend, length);
        yield return new Reject(backend, length, throws: true);
        yield return new Reject(backend, length, throws: false);
        if (backend.Id == AesGcmSivBackend.Portable && PortablePart.Requested)
        {
            foreach (string part in new[] { "Derive", "Expand", "Polyval", "Ctr", "Block" })
            {
                yield return new PortablePart(part, backend, length);
            }
        }
    }

    private readonly record struct Result(long Count, double MaxT, string Crop, double UncroppedT, long Median0, long Median1);

    // Welford's running mean and variance, one per class.
    private struct Moments
    {
        public long N;
        public double Mean;
        public double M2;

        public void Add(double x)
        {
            N++;
            double delta = x - Mean;
            Mean += delta / N;
            M2 += delta * (x - Mean);
        }

        public readonly double Variance => N > 1 ? M2 / (N - 1) : 0;
    }

    private static double Welch(in Moments a, in Moments b)
    {
        if (a.N < 2 || b.N < 2)
        {
            return 0;
        }

        double se = Math.Sqrt(a.Variance / a.N + b.Variance / b.N);
        return se == 0 ? 0 : (a.Mean - b.Mean) / se;
    }

    private static Result Measure(Case c, long measurements)
    {
        // dudect's crop points: 1 - 0.5^(10 (k + 1) / 100) for k = 0..99, from the 6.7th percentile up.
        double[] percentiles = Enumerable.Range(0, 100).Select(k => 1 - Math.Pow(0.5, 10.0 * (k + 1) / 100)).ToArray();
        long[]? thresholds = null;
        var tests = new Moments[percentiles.Length + 1, 2]; // the last: no cropping
        var samples = new List<long>[] { new(), new() };

        int[] classes = new int[BatchSize];
        long[] times = new long[BatchSize];

        // Warm-up batch, discarded: first calls, caches, and the thresholds taken from its measurements.
        long done = -BatchSize;
        while (done < measurements)
        {
            const int batch = BatchSize;
            for (int i = 0; i < batch; i++)
            {
                classes[i] = RandomNumberGenerator.GetInt32(2);
                c.Prepare(i, classes[i]);
            }

            for (int i = 0; i < batch; i++)
            {
                times[i] = Time(c, i);
            }

            if (done < 0)
            {
                long[] sorted = times.AsSpan(0, batch).ToArray();
                Array.Sort(sorted);
                thresholds = percentiles.Select(p => sorted[(int)(p * (batch - 1))]).ToArray();
                done += batch;
                continue;
            }

            for (int i = 0; i < batch; i++)
            {
                int cls = classes[i];
                long t = times[i];
                tests[percentiles.Length, cls].Add(t);
                for (int p = 0; p < thresholds!.Length; p++)
                {
                    if (t < thresholds[p])
                    {
                        tests[p, cls].Add(t);
                    }
                }

                if (samples[cls].Count < 200_000)
                {
                    samples[cls].Add(t);
                }
            }

            done += batch;
        }

        double maxT = 0;
        string crop = "none";
        int cropIndex = percentiles.Length;
        for (int p = 0; p <= percentiles.Length; p++)
        {
            // dudect ignores tests with too few measurements to say anything.
            if (tests[p, 0].N + tests[p, 1].N < 10_000)
            {
                continue;
            }

            double t = Math.Abs(Welch(tests[p, 0], tests[p, 1]));
            if (t > maxT)
            {
                maxT = t;
                cropIndex = p;
                crop = p == percentiles.Length ? "none" : $"p{percentiles[p] * 100:F1}";
            }
        }

        long Median(List<long> s)
        {
            s.Sort();
            return s.Count == 0 ? 0 : s[s.Count / 2];
        }

        // Which class is slower where |t| is largest, and by how much: a leak has a sign and a size.
        Console.WriteLine($"# {c.Name}, at crop {crop}: class 0 mean {tests[cropIndex, 0].Mean:F2} ticks ({tests[cropIndex, 0].N} calls), class 1 mean {tests[cropIndex, 1].Mean:F2} ({tests[cropIndex, 1].N})");
        long count = tests[percentiles.Length, 0].N + tests[percentiles.Length, 1].N;
        return new Result(count, maxT, crop, Welch(tests[percentiles.Length, 0], tests[percentiles.Length, 1]), Median(samples[0]), Median(samples[1]));
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Time(Case c, int slot)
    {
        long start = Stopwatch.GetTimestamp();
        c.Run(slot);
        return Stopwatch.GetTimestamp() - start;
    }
}
