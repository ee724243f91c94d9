/**
 * Verdicts and messages of robfig/cron v3's parser.go with SecondOptional | Minute | Hour | Dom | Month
 * | Dow | Descriptor (the Forkspacer operator's options). The unit test checks the port against them;
 * differential.e2e.test.ts checks them, and many generated schedules, against robfig itself.
 */
export const accepted = [
  "0 18 * * 1-5",
  "30 0 18 * * MON-FRI",
  "*/15 * * * *",
  "0 9 * * sun,Sat",
  "0 0 1 jan,JUL *",
  "0 0 ? * *",
  "5/10 * * * *",
  "0-59/2 * * * *",
  "0 0 1,,15 * *",
  "@daily",
  "@midnight",
  "@every 1h30m",
  "@every 1.5s",
  "TZ=Europe/Berlin 0 18 * * *",
  "CRON_TZ=UTC @hourly",
  "  0   18 * * *  ",
];
export const refused: [string, string][] = [
  ["", "empty spec string"],
  ["0 18 * *", "expected 5 to 6 fields, found 4: [0 18 * *]"],
  ["0 0 18 * * * *", "expected 5 to 6 fields, found 7: [0 0 18 * * * *]"],
  ["60 * * * *", "end of range (60) above maximum (59): 60"],
  ["0 0 0 * *", "beginning of range (0) below minimum (1): 0"],
  ["0 0 * 13 *", "end of range (13) above maximum (12): 13"],
  ["0 0 * * 7", "end of range (7) above maximum (6): 7"],
  ["5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"],
  ["1-2-3 * * * *", "too many hyphens: 1-2-3"],
  ["*/2/3 * * * *", "too many slashes: */2/3"],
  ["*/0 * * * *", "step of range should be a positive number: */0"],
  ["x * * * *", 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
  ["-1 * * * *", 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax'],
  ["0 0 * * funday", 'failed to parse int from funday: strconv.Atoi: parsing "funday": invalid syntax'],
  ["@sometimes", "unrecognized descriptor: @sometimes"],
  ["@every soon", 'failed to parse duration @every soon: time: invalid duration "soon"'],
  ["TZ=Mars/Olympus 0 * * * *", "provided bad location Mars/Olympus: unknown time zone Mars/Olympus"],
];
