// The content-encoding layer (RFC 8188 framing) against the bare AEAD over the same bytes, in the
// same run: 1 MiB encoded and decoded at record sizes 4096 and 65536, for both codings.
//
// Baseline ("BareAead_*"): the coding's AEAD (AesGcm, or AesGcmSiv on the active backend) sealing or
// opening the very record plaintexts the layer seals (rs - 16 bytes each: data and delimiter) out of
// place, one call per record, nonce and buffers prepared: the cost of the cryptography alone.
// The layer's rows add what it does on top: key derivation (HKDF, once per body), the header,
// assembling each record (a copy of its data next to the delimiter, since AES-GCM takes its
// plaintext in one piece) and the padding check; the stream rows add the stream's copies
// (Encode_StreamCopyFrom: the stream reads the data from a MemoryStream itself, still one copy; from
// a file, the read is then the only copy, where Write adds one from the caller's buffer).
// Goal (issue 6): at most 1.15x the baseline's time, no allocation per record (compare the
// Allocated column between the two record sizes: it does not grow with the number of records).
//
//   dotnet run -c Release --project Benchmarks -- --filter '*ContentEncoding*'

using System;
using System.IO;
using System.Security.Cryptography;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using Cryptography;
using Cryptography.ContentEncoding;

namespace Benchmarks;

[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory, BenchmarkLogicalGroupRule.ByParams)]
[CategoriesColumn]
public class ContentEncodingBenchmarks
{
    private const int TagSize = 16;
    private static readonly byte[] Salt = new byte[16];

    private byte[] _ikm = null!;
    private byte[] _plaintext = null!;
    private byte[] _body = null!;
    private byte[] _records = null!;
    private byte[] _output = null!;
    private byte[] _tags = null!;
    private byte[] _readBuffer = null!;
    private MemoryStream _sink = null!;
    private AesGcm? _aesGcm;
    private AesGcmSiv? _aesGcmSiv;
    private readonly byte[] _nonce = new byte[12];
    private int _recordCount;
    private int _lastRecordPlaintext;

    /// <summary>The content's length: 1 MiB (the streams' pipeline, which starts past the first 1 MiB,
    /// does not run) and 16 MiB (with <see cref="Threads"/> 2, it runs at its steady state).</summary>
    [Params(1048576, 16777216)]
    public int Size { get; set; }

    /// <summary>The record size, tag included.</summary>
    [Params(4096, 65536)]
    public int RecordSize { get; set; }

    /// <summary>The streams' MaxDegreeOfParallelism: 1 (the default: no background work) or 2 (the
    /// pipeline, past the first 1 MiB). The one-shot and bare rows do not depend on it.</summary>
    [Params(1, 2)]
    public int Threads { get; set; }

    /// <summary>The coding: aes128gcm (AesGcm records) or aes256gcmsiv (AesGcmSiv records).</summary>
    [Params(ContentCoding.Aes128Gcm, ContentCoding.Aes256GcmSiv)]
    public ContentCoding Coding { get; set; }

    private int RecordPlaintext => RecordSize - TagSize;

    [GlobalSetup]
    public void Setup()
    {
        _ikm = RandomNumberGenerator.GetBytes(16);
        _plaintext = RandomNumberGenerator.GetBytes(Size);
        _body = new byte[ContentEncryption.GetEncryptedLength(Size, new ContentEncodingOptions { RecordSize = RecordSize })];
        ContentEncryption.Encrypt(_plaintext, _ikm, _body, new ContentEncodingOptions { Coding = Coding, RecordSize = RecordSize }, salt: Salt);
        _readBuffer = new byte[1 << 16];
        _sink = new MemoryStream(_body.Length);

        // The bare AEAD's input: the same record plaintexts (data || delimiter), laid out back to back,
        // and their ciphertexts and tags for the decrypt baseline.
        byte[] key = RandomNumberGenerator.GetBytes(Coding == ContentCoding.Aes128Gcm ? 16 : 32);
        if (Coding == ContentCoding.Aes128Gcm)
        {
            _aesGcm = new AesGcm(key, TagSize);
        }
        else
        {
            _aesGcmSiv = new AesGcmSiv(key);
        }

        int records = _recordCount = (Size + RecordSize - 18) / (RecordSize - 17);
        _records = new byte[records * RecordPlaintext];
        _tags = new byte[records * TagSize];
        _output = new byte[Math.Max(_body.Length, _records.Length)];
        for (int i = 0, offset = 0; i < records; i++, offset += RecordSize - 17)
        {
            int data = Math.Min(RecordSize - 17, Size - offset);
            _plaintext.AsSpan(offset, data).CopyTo(_records.AsSpan(i * RecordPlaintext));
            _records[i * RecordPlaintext + data] = (byte)(i == records - 1 ? 2 : 1);
            _lastRecordPlaintext = data + 1;
        }

        BareAead_Encrypt();
        Buffer.BlockCopy(_output, 0, _records, 0, _records.Length);   // ciphertexts, sealed by the line above
        byte[] roundTrip = new byte[ContentEncryption.GetMaxDecryptedLength(_body, _body.Length)];
        if (ContentEncryption.Decrypt(_body, _ikm, roundTrip, new ContentEncodingOptions { Coding = Coding }) != Size || !roundTrip.AsSpan(0, Size).SequenceEqual(_plaintext))
        {
            throw new InvalidOperationException("The body did not decode to its content.");
        }
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _aesGcm?.Dispose();
        _aesGcmSiv?.Dispose();
    }

    [Benchmark(Baseline = true), BenchmarkCategory("Encode")]
    public void BareAead_Encrypt()
    {
        for (int i = 0, offset = 0, tag = 0; i < _recordCount; i++, offset += RecordPlaintext, tag += TagSize)
        {
            int length = i == _recordCount - 1 ? _lastRecordPlaintext : RecordPlaintext;
            Seal(_records.AsSpan(offset, length), _output.AsSpan(offset, length), _tags.AsSpan(tag, TagSize));
        }
    }

    [Benchmark, BenchmarkCategory("Encode")]
    public int Encode_OneShot() => ContentEncryption.Encrypt(_plaintext, _ikm, _output, new ContentEncodingOptions { Coding = Coding, RecordSize = RecordSize }, salt: Salt);

    [Benchmark, BenchmarkCategory("Encode")]
    public long Encode_Stream()
    {
        _sink.Position = 0;
        using (var stream = new ContentEncryptingStream(_sink, _ikm, new ContentEncodingOptions { Coding = Coding, RecordSize = RecordSize, MaxDegreeOfParallelism = Threads }, salt: Salt, leaveOpen: true))
        {
            for (int offset = 0; offset < Size; offset += 1 << 16)
            {
                stream.Write(_plaintext, offset, Math.Min(1 << 16, Size - offset));
            }

            stream.FlushFinalBlock();
        }

        return _sink.Position;
    }

    /// <summary>The stream reading its data itself (CopyFrom) from a MemoryStream over the content.</summary>
    [Benchmark, BenchmarkCategory("Encode")]
    public long Encode_StreamCopyFrom()
    {
        _sink.Position = 0;
        using (var stream = new ContentEncryptingStream(_sink, _ikm, new ContentEncodingOptions { Coding = Coding, RecordSize = RecordSize, MaxDegreeOfParallelism = Threads }, salt: Salt, leaveOpen: true))
        {
            stream.CopyFrom(new MemoryStream(_plaintext, 0, Size, writable: false));
        }

        return _sink.Position;
    }

    [Benchmark(Baseline = true), BenchmarkCategory("Decode")]
    public void BareAead_Decrypt()
    {
        for (int i = 0, offset = 0, tag = 0; i < _recordCount; i++, offset += RecordPlaintext, tag += TagSize)
        {
            int length = i == _recordCount - 1 ? _lastRecordPlaintext : RecordPlaintext;
            Open(_records.AsSpan(offset, length), _tags.AsSpan(tag, TagSize), _output.AsSpan(offset, length));
        }
    }

    [Benchmark, BenchmarkCategory("Decode")]
    public int Decode_OneShot() => ContentEncryption.Decrypt(_body, _ikm, _output, new ContentEncodingOptions { Coding = Coding });

    [Benchmark, BenchmarkCategory("Decode")]
    public long Decode_Stream()
    {
        long total = 0;
        using var stream = new ContentDecryptingStream(new MemoryStream(_body, writable: false), _ikm, new ContentEncodingOptions { Coding = Coding, MaxDegreeOfParallelism = Threads });
        int read;
        while ((read = stream.Read(_readBuffer)) > 0)
        {
            total += read;
        }

        return total;
    }

    private void Seal(ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag)
    {
        if (_aesGcm is not null)
        {
            _aesGcm.Encrypt(_nonce, plaintext, ciphertext, tag);
        }
        else
        {
            _aesGcmSiv!.Encrypt(_nonce, plaintext, ciphertext, tag);
        }
    }

    private void Open(ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext)
    {
        if (_aesGcm is not null)
        {
            _aesGcm.Decrypt(_nonce, ciphertext, tag, plaintext);
        }
        else
        {
            _aesGcmSiv!.Decrypt(_nonce, ciphertext, tag, plaintext);
        }
    }
}
