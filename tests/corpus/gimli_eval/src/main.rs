//! Reads one hex-encoded DWARF expression per line on stdin and prints what
//! gimli's Evaluation makes of it in a fixed environment (the same one
//! test_eval_gimli.py gives amddwarf as a snapshot):
//!   register N holds 0x1000 + N (4 bytes for N >= 32; PC_64, 16, 8 bytes), memory byte A is
//!   (A * 7 + 3) & 0xff, the frame base is 0x2000.
//! Output per line: `address A`, `register N`, `value V`, `implicit HEX`,
//! `pieces HEX` (the bytes the pieces describe) or `error TEXT`.
use gimli::{Encoding, EndianSlice, EvaluationResult, Expression, Format, LittleEndian, Location, Value};
use std::io::BufRead;

fn mem(a: u64) -> u8 {
    (a.wrapping_mul(7).wrapping_add(3) & 0xff) as u8
}

fn reg(n: u16) -> u64 {
    0x1000 + n as u64
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{:02x}", b)).collect()
}

fn run(bytes: &[u8]) -> Result<String, String> {
    let enc = Encoding { format: Format::Dwarf32, version: 5, address_size: 8 };
    let expr = Expression(EndianSlice::new(bytes, LittleEndian));
    let mut eval = expr.evaluation(enc);
    let mut r = eval.evaluate().map_err(|e| format!("{:?}", e))?;
    loop {
        r = match r {
            EvaluationResult::Complete => break,
            EvaluationResult::RequiresRegister { register, .. } => {
                eval.resume_with_register(Value::Generic(reg(register.0))).map_err(|e| format!("{:?}", e))?
            }
            EvaluationResult::RequiresRelocatedAddress(address) => {
                eval.resume_with_relocated_address(address).map_err(|e| format!("{:?}", e))?
            }
            EvaluationResult::RequiresFrameBase => {
                eval.resume_with_frame_base(0x2000).map_err(|e| format!("{:?}", e))?
            }
            EvaluationResult::RequiresMemory { address, size, .. } => {
                let mut v = 0u64;
                for i in 0..size as u64 {
                    v |= (mem(address + i) as u64) << (8 * i);
                }
                eval.resume_with_memory(Value::Generic(v)).map_err(|e| format!("{:?}", e))?
            }
            other => return Err(format!("unsupported request {:?}", other)),
        };
    }
    let pieces = eval.result();
    if pieces.len() == 1 && pieces[0].size_in_bits.is_none() {
        return Ok(match &pieces[0].location {
            Location::Address { address } => format!("address {}", address),
            Location::Register { register } => format!("register {}", register.0),
            Location::Value { value } => match value {
                Value::Generic(v) => format!("value {}", v),
                other => format!("value {:?}", other),
            },
            Location::Bytes { value } => format!("implicit {}", hex(value.slice())),
            Location::Empty => "empty".to_string(),
            other => format!("other {:?}", other),
        });
    }
    // Pieces: the bits they describe, least significant first.
    let mut bits: Vec<u8> = Vec::new();
    for p in &pieces {
        let size = p.size_in_bits.ok_or("piece without size")? as usize;
        let off = p.bit_offset.unwrap_or(0) as usize;
        let source: Vec<u8> = match &p.location {
            Location::Address { address } => (0..((off + size + 7) / 8) as u64).map(|i| mem(address + i)).collect(),
            Location::Register { register } => reg(register.0).to_le_bytes()[..4].to_vec(),
            Location::Value { value } => match value {
                Value::Generic(v) => v.to_le_bytes().to_vec(),
                _ => return Err("typed piece".into()),
            },
            Location::Bytes { value } => value.slice().to_vec(),
            _ => return Err("undefined piece".into()),
        };
        for i in 0..size {
            let b = off + i;
            if b / 8 >= source.len() {
                return Err("piece past its storage".into());
            }
            bits.push((source[b / 8] >> (b % 8)) & 1);
        }
    }
    let mut out = vec![0u8; (bits.len() + 7) / 8];
    for (i, b) in bits.iter().enumerate() {
        out[i / 8] |= b << (i % 8);
    }
    Ok(format!("pieces {}", hex(&out)))
}

fn main() {
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let line = line.unwrap();
        let text = line.trim();
        let bytes: Vec<u8> = (0..text.len() / 2)
            .map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).unwrap())
            .collect();
        match run(&bytes) {
            Ok(s) => println!("{}", s),
            Err(e) => println!("error {}", e),
        }
    }
}
