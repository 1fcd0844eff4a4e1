//! gimli's `Evaluation` on the standard-subset equivalents of the AMDGPU
//! locations timed by bench/bench_eval.c and of the 8 variables of
//! bench/bench_gpu_stop.c, reading the same 4-8 byte values from an
//! in-memory wave. Prints `workload ns_per_op` lines.
use gimli::{
    Encoding, EndianSlice, EvaluationResult, Expression, Format, LittleEndian, Location, Value,
};
use std::hint::black_box;
use std::time::Instant;

const LANES: usize = 64;

struct Wave {
    sgpr: [u32; 128],
    vgpr1: [u32; LANES],
    private: Vec<[u8; 64]>,
}

fn encoding() -> Encoding {
    Encoding { format: Format::Dwarf32, version: 5, address_size: 8 }
}

/// Evaluates BYTES; SGPR reads DWARF register N (32-95 and up: the SGPRs) as
/// SGPR((N - 32) % 128), the frame base is FRAME_BASE. Returns the pieces'
/// locations.
fn evaluate_with<'a>(
    bytes: &'a [u8],
    sgpr: &dyn Fn(usize) -> u64,
    frame_base: u64,
) -> Vec<gimli::Piece<EndianSlice<'a, LittleEndian>>> {
    let expr = Expression(EndianSlice::new(bytes, LittleEndian));
    let mut eval = expr.evaluation(encoding());
    let mut result = eval.evaluate().unwrap();
    loop {
        match result {
            EvaluationResult::Complete => break,
            EvaluationResult::RequiresRegister { register, .. } => {
                let v = sgpr((register.0 as usize - 32) % 128);
                result = eval.resume_with_register(Value::Generic(v)).unwrap();
            }
            EvaluationResult::RequiresFrameBase => {
                result = eval.resume_with_frame_base(frame_base).unwrap();
            }
            _ => panic!("unexpected request"),
        }
    }
    eval.result()
}

/// Evaluates BYTES with registers from WAVE's SGPRs.
fn evaluate<'a>(
    bytes: &'a [u8],
    wave: &Wave,
    frame_base: u64,
) -> Vec<gimli::Piece<EndianSlice<'a, LittleEndian>>> {
    evaluate_with(bytes, &|i| wave.sgpr[i] as u64, frame_base)
}

fn time<F: FnMut(usize) -> u64>(mut f: F) -> f64 {
    const ITERS: usize = 200_000;
    let mut samples = Vec::new();
    for _ in 0..9 {
        let start = Instant::now();
        let mut sum = 0u64;
        for i in 0..ITERS {
            sum = sum.wrapping_add(f(i % LANES));
        }
        black_box(sum);
        samples.push(start.elapsed().as_nanos() as f64 / ITERS as f64);
    }
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    samples[samples.len() / 2]
}

/// A wave of the whole-GPU-stop workload (bench/gpu_stop_workload.h): the
/// registers and memory its 8 variables use.
struct StopWave {
    sgpr: [u32; 128],
    vgpr: [[u32; LANES]; 5], // v1-v4, then v41
    exec: u64,
    private: Vec<[u8; 0x400]>,
    local: [u8; 4],
}

fn read32(bytes: &[u8], at: usize) -> u64 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as u64
}

/// The lane's dword of the vector register a location names (v1-v4, v41).
fn lane_dword(wave: &StopWave, register: u16, lane: usize) -> u64 {
    let index = if register == 2601 { 4 } else { register as usize - 2561 };
    wave.vgpr[index][lane] as u64
}

/// Evaluates BYTES with registers from the stopped WAVE's SGPRs.
fn evaluate_stop<'a>(
    bytes: &'a [u8],
    wave: &StopWave,
    frame_base: u64,
) -> Vec<gimli::Piece<EndianSlice<'a, LittleEndian>>> {
    evaluate_with(bytes, &|i| wave.sgpr[i] as u64, frame_base)
}

/// Reads one lane's value of a variable from the pieces gimli computed:
/// registers are SGPRs or the lane's dword of a VGPR, addresses are in the
/// lane's private memory (or LDS for TILE).
fn read_pieces(
    pieces: &[gimli::Piece<EndianSlice<LittleEndian>>],
    wave: &StopWave,
    lane: usize,
    local: bool,
) -> u64 {
    let mut value = 0u64;
    for (i, piece) in pieces.iter().enumerate() {
        let part = match piece.location {
            Location::Register { register } if register.0 >= 2560 => {
                lane_dword(wave, register.0, lane)
            }
            Location::Register { register } => wave.sgpr[register.0 as usize - 32] as u64,
            Location::Address { address } if local => read32(&wave.local, address as usize - 0x100),
            Location::Address { address } => read32(&wave.private[lane], address as usize),
            _ => panic!("unexpected location"),
        };
        value |= part << (32 * i);
    }
    value
}

/// The 8 variables of the whole-GPU-stop workload in their standard-subset
/// form: the time of one lane's evaluation and read of each (both stop PCs
/// alternate for `idx`), in bench/gpu_stop_workload.h's order.
fn gpu_stop_variables() -> [f64; 8] {
    let mut wave = StopWave {
        sgpr: [0; 128],
        vgpr: [[0; LANES]; 5],
        exec: u64::MAX >> 3,
        private: vec![[0u8; 0x400]; LANES],
        local: 0x7000_0000u32.to_le_bytes(),
    };
    wave.sgpr[8] = 1000;
    wave.sgpr[10] = 0x1000;
    wave.sgpr[11] = 0x7f00;
    wave.sgpr[32] = 0x7000; // s32: wave-scaled stack pointer of the leaf
    for l in 0..LANES {
        for r in 0..5 {
            wave.vgpr[r][l] = (r as u32) << 24 | l as u32;
        }
        for b in 0..0x400 {
            wave.private[l][b] = (l * 3 + b) as u8;
        }
    }
    // The frame base: DW_OP_bregx s32 0; DW_OP_lit6; DW_OP_shr (the
    // private_lane address without its address space).
    let frame_expr: [u8; 5] = [0x92, 0x40, 0x00, 0x36, 0x25];
    let regx_v1: [u8; 3] = [0x90, 0x81, 0x14];
    let regx_s8: [u8; 2] = [0x90, 0x28];
    let fbreg_16: [u8; 2] = [0x91, 0x10];
    let constu_tile: [u8; 3] = [0x10, 0x80, 0x02];
    let v2_v3: [u8; 10] = [0x90, 0x82, 0x14, 0x93, 0x04, 0x90, 0x83, 0x14, 0x93, 0x04];
    let regx_v4: [u8; 3] = [0x90, 0x84, 0x14];
    let fbreg_20: [u8; 2] = [0x91, 0x14];
    let s10_s11: [u8; 8] = [0x90, 0x2a, 0x93, 0x04, 0x90, 0x2b, 0x93, 0x04];
    let regx_v41: [u8; 3] = [0x90, 0xa9, 0x14];
    let frame_base = || match evaluate_stop(&frame_expr, &wave, 0)[0].location {
        Location::Address { address } => address,
        _ => panic!(),
    };
    let read = |bytes: &[u8], base: u64, lane: usize, local: bool| {
        read_pieces(&evaluate_stop(bytes, &wave, base), &wave, lane, local)
    };
    [
        time(|lane| read(&regx_v1, 0, lane, false)),
        time(|lane| read(&regx_s8, 0, lane, false)),
        time(|lane| read(&fbreg_16, frame_base(), lane, false)),
        time(|lane| read(&constu_tile, 0, lane, true)),
        time(|lane| read(&v2_v3, 0, lane, false)),
        time2(|lane, odd_wave| {
            if odd_wave {
                read(&fbreg_20, frame_base(), lane, false)
            } else {
                read(&regx_v4, 0, lane, false)
            }
        }),
        time(|lane| read(&s10_s11, 0, lane, false)),
        // spilled: gimli has no DW_OP_LLVM_select_bit_piece; the caller
        // picks the spill slot (frame base + 0x20) for EXEC lanes and the
        // VGPR otherwise.
        time(|lane| {
            if (wave.exec >> lane) & 1 == 1 {
                read32(&wave.private[lane], frame_base() as usize + 0x20)
            } else {
                read(&regx_v41, 0, lane, false)
            }
        }),
    ]
}

/// As `time`, with a flag alternating every 64 lanes (the stop PC of
/// even and odd waves).
fn time2<F: FnMut(usize, bool) -> u64>(mut f: F) -> f64 {
    let mut i = 0usize;
    time(move |lane| {
        i += 1;
        f(lane, (i / LANES) % 2 == 1)
    })
}

fn main() {
    let mut wave = Wave { sgpr: [0; 128], vgpr1: [0; LANES], private: vec![[0u8; 64]; LANES] };
    for i in 0..128 {
        wave.sgpr[i] = 0x1000_0000 + i as u32;
    }
    wave.sgpr[33] = 0x20; // s33: frame register (private lane address)
    for l in 0..LANES {
        wave.vgpr1[l] = 0x100 + l as u32;
        for b in 0..64 {
            wave.private[l][b] = (l * 3 + b) as u8;
        }
    }

    // 1. VGPR lane select: the standard subset has no lane operation, so the
    //    expression names the register and the caller selects the lane's dword.
    let regx_v1: [u8; 3] = [0x90, 0x81, 0x14]; // DW_OP_regx 2561
    let t1 = time(|lane| {
        let pieces = evaluate(&regx_v1, &wave, 0);
        match pieces[0].location {
            Location::Register { register } => {
                black_box(register);
                wave.vgpr1[lane] as u64
            }
            _ => panic!(),
        }
    });

    // 2. A private slot through DW_OP_fbreg: the frame base expression
    //    (DW_OP_bregx s33 0) is evaluated first, then DW_OP_fbreg 8, then the
    //    4-byte value is read from the lane's private memory.
    let frame_expr: [u8; 3] = [0x92, 0x41, 0x00]; // DW_OP_bregx 65 0
    let fbreg: [u8; 2] = [0x91, 0x08]; // DW_OP_fbreg 8
    let t2 = time(|lane| {
        let fb = evaluate(&frame_expr, &wave, 0);
        let base = match fb[0].location {
            Location::Address { address } => address,
            _ => panic!(),
        };
        let pieces = evaluate(&fbreg, &wave, base);
        match pieces[0].location {
            Location::Address { address } => {
                let a = address as usize;
                let m = &wave.private[lane];
                u32::from_le_bytes([m[a], m[a + 1], m[a + 2], m[a + 3]]) as u64
            }
            _ => panic!(),
        }
    });

    // 3. A 64-bit value in an SGPR pair: DW_OP_regx s40; DW_OP_piece 4;
    //    DW_OP_regx s41; DW_OP_piece 4, then both halves read.
    let pair: [u8; 8] = [0x90, 0x48, 0x93, 0x04, 0x90, 0x49, 0x93, 0x04];
    let t3 = time(|_lane| {
        let pieces = evaluate(&pair, &wave, 0);
        let mut v = 0u64;
        for (i, p) in pieces.iter().enumerate() {
            if let Location::Register { register } = p.location {
                v |= (wave.sgpr[register.0 as usize - 32] as u64) << (32 * i);
            }
        }
        v
    });

    println!("vgpr_lane_select {:.1}", t1);
    println!("private_lane_fbreg {:.1}", t2);
    println!("sgpr_pieces {:.1}", t3);
    let stop = gpu_stop_variables();
    let names = ["lane_id", "count", "slot", "tile", "sum", "idx", "base", "spilled"];
    for (name, ns) in names.iter().zip(stop.iter()) {
        println!("gpu_stop_{} {:.1}", name, ns);
    }
    println!("gpu_stop_lane_eval {:.1}", stop.iter().sum::<f64>() / 8.0);
}
