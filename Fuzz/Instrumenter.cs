// Edge-coverage instrumentation of a .NET assembly, the way AFL (and SharpFuzz, which is not on
// this project's package feed) does it: every basic block gets a probe
//     __FuzzCoverage.Hit(blockIndex)
// which marks the block as reached and bumps the AFL edge counter Map[id(block) ^ (id(previous) >> 1)].
// Block leaders are a method's first instruction, branch and switch targets, the instruction after
// a branch, return or throw, and the starts of try blocks, handlers and filters. Branches, switches
// and exception-handler boundaries that pointed at a leader are redirected to its probe, so a probe
// runs however its block is entered.

using System;
using System.Collections.Generic;
using System.Linq;
using Mono.Cecil;
using Mono.Cecil.Cil;
using Mono.Cecil.Rocks;

namespace Fuzz;

internal static class Instrumenter
{
    public const string CoverageTypeName = "__FuzzCoverage";

    /// <summary>Writes an instrumented copy of <paramref name="input"/>; returns, per instrumented method,
    /// its type (nested types counted with the type that declares them), its name and the range of probe numbers it got.</summary>
    public static List<(string Type, string Method, int First, int End)> Instrument(string input, string output, Func<TypeDefinition, bool> include)
    {
        using ModuleDefinition module = ModuleDefinition.ReadModule(input);
        MethodDefinition hit = AddCoverageType(module);
        var ranges = new List<(string Type, string Method, int First, int End)>();
        int probes = 0;
        foreach (TypeDefinition type in module.GetTypes().Where(t => t.Name != CoverageTypeName && include(t)).ToList())
        {
            TypeDefinition outer = type;
            while (outer.DeclaringType is not null)
            {
                outer = outer.DeclaringType;
            }

            foreach (MethodDefinition method in type.Methods.Where(m => m.HasBody))
            {
                int first = probes;
                probes = InstrumentMethod(method, hit, probes);
                ranges.Add((outer.Name, type.Name + "::" + method.Name, first, probes));
            }
        }

        module.Write(output);
        return ranges;
    }

    private static int InstrumentMethod(MethodDefinition method, MethodDefinition hit, int nextProbe)
    {
        MethodBody body = method.Body;
        body.SimplifyMacros();
        var leaders = new List<Instruction> { body.Instructions[0] };
        foreach (Instruction instruction in body.Instructions)
        {
            switch (instruction.Operand)
            {
                case Instruction target:
                    leaders.Add(target);
                    break;
                case Instruction[] targets:
                    leaders.AddRange(targets);
                    break;
            }

            if (instruction.Next is { } next && instruction.OpCode.FlowControl is FlowControl.Branch or FlowControl.Cond_Branch or FlowControl.Return or FlowControl.Throw)
            {
                leaders.Add(next);
            }
        }

        foreach (ExceptionHandler handler in body.ExceptionHandlers)
        {
            leaders.Add(handler.TryStart);
            leaders.Add(handler.HandlerStart);
            if (handler.FilterStart is not null)
            {
                leaders.Add(handler.FilterStart);
            }
        }

        ILProcessor il = body.GetILProcessor();
        foreach (Instruction leader in leaders.Distinct().ToList())
        {
            Instruction load = il.Create(OpCodes.Ldc_I4, nextProbe++);
            il.InsertBefore(leader, load);
            il.InsertAfter(load, il.Create(OpCodes.Call, hit));
            Redirect(body, leader, load);
        }

        body.OptimizeMacros();
        return nextProbe;
    }

    private static void Redirect(MethodBody body, Instruction from, Instruction to)
    {
        foreach (Instruction instruction in body.Instructions)
        {
            if (instruction == to)
            {
                continue;
            }

            if (instruction.Operand == from)
            {
                instruction.Operand = to;
            }
            else if (instruction.Operand is Instruction[] targets)
            {
                for (int i = 0; i < targets.Length; i++)
                {
                    if (targets[i] == from)
                    {
                        targets[i] = to;
                    }
                }
            }
        }

        foreach (ExceptionHandler handler in body.ExceptionHandlers)
        {
            if (handler.TryStart == from) handler.TryStart = to;
            if (handler.TryEnd == from) handler.TryEnd = to;
            if (handler.HandlerStart == from) handler.HandlerStart = to;
            if (handler.HandlerEnd == from) handler.HandlerEnd = to;
            if (handler.FilterStart == from) handler.FilterStart = to;
        }
    }

    // public static class __FuzzCoverage
    // {
    //     public static byte[] Map;      // 64 KiB of AFL edge counters
    //     public static byte[] Blocks;   // one flag per probe: reached at least once
    //     public static int[] Ids;       // a random 16-bit id per probe
    //     public static int Previous;
    //     public static void Hit(int probe)
    //     {
    //         Blocks[probe] = 1;
    //         int id = Ids[probe];
    //         Map[id ^ Previous]++;
    //         Previous = id >> 1;
    //     }
    // }
    private static MethodDefinition AddCoverageType(ModuleDefinition module)
    {
        TypeSystem types = module.TypeSystem;
        var coverage = new TypeDefinition(string.Empty, CoverageTypeName, TypeAttributes.Public | TypeAttributes.Abstract | TypeAttributes.Sealed | TypeAttributes.Class, types.Object);
        var map = new FieldDefinition("Map", FieldAttributes.Public | FieldAttributes.Static, new ArrayType(types.Byte));
        var blocks = new FieldDefinition("Blocks", FieldAttributes.Public | FieldAttributes.Static, new ArrayType(types.Byte));
        var ids = new FieldDefinition("Ids", FieldAttributes.Public | FieldAttributes.Static, new ArrayType(types.Int32));
        var previous = new FieldDefinition("Previous", FieldAttributes.Public | FieldAttributes.Static, types.Int32);
        coverage.Fields.Add(map);
        coverage.Fields.Add(blocks);
        coverage.Fields.Add(ids);
        coverage.Fields.Add(previous);

        var hit = new MethodDefinition("Hit", MethodAttributes.Public | MethodAttributes.Static | MethodAttributes.HideBySig, types.Void);
        hit.Parameters.Add(new ParameterDefinition("probe", ParameterAttributes.None, types.Int32));
        var id = new VariableDefinition(types.Int32);
        hit.Body.Variables.Add(id);
        ILProcessor il = hit.Body.GetILProcessor();
        il.Emit(OpCodes.Ldsfld, blocks);
        il.Emit(OpCodes.Ldarg_0);
        il.Emit(OpCodes.Ldc_I4_1);
        il.Emit(OpCodes.Stelem_I1);
        il.Emit(OpCodes.Ldsfld, ids);
        il.Emit(OpCodes.Ldarg_0);
        il.Emit(OpCodes.Ldelem_I4);
        il.Emit(OpCodes.Stloc, id);
        il.Emit(OpCodes.Ldsfld, map);
        il.Emit(OpCodes.Ldloc, id);
        il.Emit(OpCodes.Ldsfld, previous);
        il.Emit(OpCodes.Xor);
        il.Emit(OpCodes.Ldelema, types.Byte);
        il.Emit(OpCodes.Dup);
        il.Emit(OpCodes.Ldind_U1);
        il.Emit(OpCodes.Ldc_I4_1);
        il.Emit(OpCodes.Add);
        il.Emit(OpCodes.Conv_U1);
        il.Emit(OpCodes.Stind_I1);
        il.Emit(OpCodes.Ldloc, id);
        il.Emit(OpCodes.Ldc_I4_1);
        il.Emit(OpCodes.Shr);
        il.Emit(OpCodes.Stsfld, previous);
        il.Emit(OpCodes.Ret);
        coverage.Methods.Add(hit);
        module.Types.Add(coverage);
        return hit;
    }
}
