//! gimli's `Evaluation` on the standard-subset equivalents of the AMDGPU
//! locations timed by bench/bench_eval.c, reading the same 4-8 byte values
//! from an in-memory wave. Prints `workload ns_per_op` lines.
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

/// Evaluates BYTES; registers read from the wave (SGPRs: DWARF 32-95), the
/// frame base is FRAME_BASE. Returns the pieces' locations.
fn evaluate<'a>(
    bytes: &'a [u8],
    wave: &Wave,
    frame_base: u64,
) -> Vec<gimli::Piece<EndianSlice<'a, LittleEndian>>> {
    let expr = Expression(EndianSlice::new(bytes, LittleEndian));
    let mut eval = expr.evaluation(encoding());
    let mut result = eval.evaluate().unwrap();
    loop {
        match result {
            EvaluationResult::Complete => break,
            EvaluationResult::RequiresRegister { register, .. } => {
                let v = wave.sgpr[(register.0 as usize - 32) % 128] as u64;
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
}
