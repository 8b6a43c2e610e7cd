import Foundation
import Testing
import RosterTestSupport

/// Each fuzz target, built without libFuzzer, runs every input of its seed corpus once
/// (Tests/Fuzz/Corpus/<name>): the corpus, crashes found by fuzzing included, is a
/// regression test of the ordinary build.
@Suite("Fuzz corpus replay")
struct FuzzCorpusTests {
    @Test(arguments: [("PredicateFuzzer", "predicate"), ("JSONFuzzer", "json"), ("ScriptFuzzer", "script")])
    func corpusRunsWithoutACrash(program: String, corpus: String) throws {
        let folder = Programs.repository.appendingPathComponent("Tests/Fuzz/Corpus/\(corpus)").path
        let inputs = try FileManager.default.contentsOfDirectory(atPath: folder).count
        #expect(inputs > 10)
        let result = try Programs.run(program, [folder])
        #expect(result.status == 0, "\(program) \(folder)\n\(result.output)")
        #expect(result.output.contains("replayed \(inputs) inputs"), "\(result.output)")
    }
}
