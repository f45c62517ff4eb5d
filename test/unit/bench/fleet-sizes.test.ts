import { parseFleetSizes } from "../../../bench/fleet";

describe("npm run bench fleet -- --sizes", () => {
  it("reads the sizes in the order given, the base first", () => {
    expect(parseFleetSizes("50,300,1000")).toEqual([50, 300, 1000]);
    expect(parseFleetSizes(" 5, 20")).toEqual([5, 20]);
  });

  it.each(["0", "5,x", "5,,20", "1e3", "-5", "2.5"])("refuses %p, naming the flag and the bad size", (text) => {
    expect(() => parseFleetSizes(text)).toThrow(/^--sizes: ".*" is not a number of resources above 0/);
  });

  it("refuses a size given twice", () => {
    expect(() => parseFleetSizes("50,300,50")).toThrow("--sizes: 50,300,50 names a size twice");
  });
});
