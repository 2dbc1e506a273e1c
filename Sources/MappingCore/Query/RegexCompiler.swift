/// Turns the tree into a program, within the program size limit.
struct RegexCompiler {
    let caseInsensitive: Bool
    var program: [LinearRegex.Instruction] = []

    mutating func append(_ instruction: LinearRegex.Instruction) throws(RegexError) {
        guard program.count < LinearRegex.maxProgram else {
            throw RegexError("the pattern compiles to more than \(LinearRegex.maxProgram) steps; use fewer or smaller repetitions")
        }
        program.append(instruction)
    }

    mutating func emit(_ node: RegexNode) throws(RegexError) {
        switch node {
        case .empty: break
        case .scalar(let scalar): try append(.scalar(scalar.value))
        case .any: try append(.any)
        case .set(let index): try append(.set(index))
        case .start: try append(.assertStart)
        case .end: try append(.assertEnd)
        case .sequence(let items): for item in items { try emit(item) }
        case .either(let branches):
            // split L1, next; L1: branch; jump end; next: split … ; the last branch falls through.
            var jumps: [Int] = []
            for (index, branch) in branches.enumerated() {
                if index < branches.count - 1 {
                    let split = program.count
                    try append(.split(split + 1, 0))
                    try emit(branch)
                    jumps.append(program.count)
                    try append(.jump(0))
                    program[split] = .split(split + 1, program.count)
                } else {
                    try emit(branch)
                }
            }
            for jump in jumps { program[jump] = .jump(program.count) }
        case .repeated(let inner, let min, let max):
            for _ in 0..<min { try emit(inner) }
            if let max {
                // Each further copy is optional: split into it or past all that follow.
                var splits: [Int] = []
                for _ in min..<max {
                    splits.append(program.count)
                    try append(.split(program.count + 1, 0))
                    try emit(inner)
                }
                for split in splits { program[split] = .split(split + 1, program.count) }
            } else {
                let loop = program.count
                try append(.split(loop + 1, 0))
                try emit(inner)
                try append(.jump(loop))
                program[loop] = .split(loop + 1, program.count)
            }
        }
    }
}
