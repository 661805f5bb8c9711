"""A labelled retrieval set for the tests of recall: maintenance guides, incident entries, and questions.

Written for these tests, about no product. GUIDES: short notes on plant equipment (key, title, body).
EPISODES: incidents, each entry recorded in order, so entry "<episode>/<n>" is its n-th line here.
QUERIES: a question, where it looks (guides or entries), its style, and the keys or ids that answer it:
  words   - shares the answer's words, as a person who read the note would ask;
  meaning - a paraphrase in other words, as a person who never read it would ask;
  code    - a fault code, part number or brand name: only the exact token identifies the answer.
"""

from __future__ import annotations

from lighthouse import Kind


def guide_kind(dimensions: int) -> Kind:
    """The kind of the guides, with vectors of `dimensions` numbers."""
    return Kind("Guide", key="code", text=("title", "body"), dimensions=dimensions)


def _table(block: str, columns: int) -> list[tuple[str, ...]]:
    rows = []
    for line in block.strip().splitlines():
        cells = tuple(cell.strip() for cell in line.split(" | "))
        if len(cells) != columns:
            raise ValueError(f"{columns} columns expected: {line!r}")
        rows.append(cells)
    return rows


GUIDES = _table(
    """
pump-seal-leak | Centrifugal pump mechanical seal | A steady drip where the shaft leaves the casing means the mechanical seal faces are worn. Isolate the suction and discharge valves, fit seal kit SK4410, and never let the pump run dry after the repair.
pump-cavitation | Cavitation on the cooling water pumps | A rattle like gravel inside the casing, with discharge pressure falling, is cavitation. Clean the suction strainer, keep the tank above its low mark, and never throttle the suction valve.
pump-impeller-wear | Slurry pump impeller wear | Flow falls slowly over months while motor current stays flat. Measure the gap between impeller and wear plate; above 1.5 mm, move the plate forward or change the impeller.
pump-dosing-airlock | Dosing pump airlock | The diaphragm dosing pump clicks but delivers nothing because gas from the hypochlorite has collected in its head. Open the bleed screw until liquid comes out without bubbles.
pump-sump-float | Sump pump float switch | The basement sump pump hums without starting, or never stops: the float is caught on the discharge pipe or on debris. Free it and check that it moves through its whole travel.
pump-booster-cycling | Booster set short cycling | The pressure booster starts and stops every few seconds when its vessel has lost the air charge. Drain the system and set the precharge to 0.9 times the cut-in pressure.
pump-alignment | Pump coupling alignment | After a motor change, align the coupling with the laser kit. Offset or angularity beyond 0.05 mm wears out bearings and seals within weeks.
pump-bearing-oil | Pump bearing housing oil | Check the sight glass weekly. Milky oil means water got into the housing: drain, flush, refill with ISO VG 68 and find where the water came in.
comp-discharge-temp | Screw compressor high discharge temperature | Trips above 110 °C discharge temperature usually come from a clogged oil cooler or low oil. Blow the cooler fins clean from the inside out and check the thermostatic valve.
comp-wet-air | Water in the compressed air network | Condensate at the tools and drop legs means the refrigerant dryer is not cooling or its drain is stuck. The dryer's dew point should read about 3 °C.
comp-drain-test | Zero-loss condensate drain test | Press the test button on the receiver's electronic drain. If nothing is discharged, clean its strainer screen and check that the coil has power.
comp-leak-survey | Compressed air leak survey | Leaks waste a quarter of the energy of a typical system. Walk the plant with the ultrasonic detector on a quiet weekend, tag each leak, and fix the tags within two weeks.
comp-pressure-band | Compressor load and unload pressures | Set unload at 7.5 bar and load at 6.8 bar on the sequencer. A narrower band makes the machines start too often.
comp-fault-e47 | Kessler KT400 controller fault E47 | E47 means the incoming phase sequence is wrong, typically after electrical work on the supply. Swap two phases at the isolator; never bridge the phase relay.
comp-oil-carryover | Oil carryover from the compressor | An oily film on parts downstream comes from a saturated separator element. Change element OS118 every 4,000 running hours, or when its pressure drop passes 1 bar.
comp-intake-filter | Compressor intake filter | A dirty intake filter raises energy use and can collapse into the air end. Replace it every 2,000 hours, more often in dusty halls.
boiler-flame-failure | Boiler flame failure lockout | The burner lights then locks out within seconds when the flame rod is dirty or the ignition electrode gap is wrong. Clean the rod with fine emery and set the gap to 3 mm.
boiler-low-water | Low water cutoff test | Blow down the low water cutoff daily while firing. The burner must stop and the alarm sound; if it keeps firing, shut down and call the boiler inspector.
boiler-scale | Scale in the boiler tubes | Hard water leaves scale that insulates the tubes and raises flue temperature. Keep feedwater hardness below 1 ppm and descale when the flue gas runs 30 °C above commissioning.
boiler-safety-valve | Boiler safety valve weeping | A safety valve that weeps just below set pressure has a damaged seat. Do not gag or plug it; replace the valve and find why pressure climbs so close to the setting.
boiler-flue-co | Flue gas carbon monoxide high | CO above 200 ppm in the flue means incomplete combustion: too little air, a dirty burner head, or a blocked flue. Adjust the air damper with the analyzer in the stack.
boiler-condensate-return | Condensate return tank venting steam | Steam blowing from the condensate tank vent points at failed steam traps passing live steam. Survey the traps before changing the makeup water chemistry.
boiler-pump-run-on | Heating pump run-on after burner stop | The circulation pump must keep running for five minutes after the burner stops so the heat exchanger does not boil. Check the run-on timer in the boiler controller.
boiler-code-f28 | Wall boiler fault F28 | F28 on the Vaillo ecoTEC panel means no flame was detected at startup, most often because the gas valve is closed or the prepaid gas meter ran out of credit.
chiller-low-suction | Chiller low suction pressure trip | Low suction pressure trips come from a low refrigerant charge, a clogged filter drier, or too little water flow through the evaporator. Check the flow switch first.
chiller-high-head | Chiller high head pressure | High condensing pressure on air-cooled chillers is nearly always dirty condenser coils or failed fans. Wash the coils from the inside out each spring.
chiller-freeze | Evaporator freeze protection | If leaving chilled water drops below 3 °C the chiller stops, to save the evaporator from freezing and cracking. Check the glycol concentration before winter.
chiller-oil-return | Chiller compressor oil level | Oil low in the sight glass after long part-load running means oil is trapped in the evaporator. Run the chiller at full load for 30 minutes to bring it back.
chiller-refrigerant-leak | Refrigerant leak check | Check the chiller with the electronic leak detector every quarter. Any leak above the F-gas threshold must be logged and repaired within 30 days.
chiller-flow-switch | Chilled water flow switch | A paddle flow switch that chatters causes nuisance trips. Make sure it is mounted in a straight run of at least five pipe diameters.
chiller-alarm-a31 | Cryon chiller alarm A31 | A31 on the Cryon CX series means the condenser fan inverter has lost communication. Reseat the RS485 cable at the inverter and check its termination jumper.
ahu-filter-dp | Air handler filter pressure drop | Replace the bag filters when the differential pressure gauge reads 250 Pa. Write the reading and the date on the label on the filter door.
ahu-belt | Air handler fan belt | A squeal at start-up means the fan belt is loose or glazed. Tension it so it deflects 15 mm at midspan, and replace both belts on a double drive.
ahu-frost-stat | Frost thermostat trip | When the frost thermostat trips, the outside air damper closes and the supply fan stops. Check that the heating coil valve opened; reset on the panel only when the coil is warm.
ahu-humidifier | Steam humidifier cylinder | The steam humidifier cylinder fills with minerals and must be changed when the unit reports low output. Hard water shortens its life to a single season.
ahu-co2 | Stuffy meeting rooms | Rooms that feel stuffy in the afternoon usually have the CO2 sensor out of calibration or demand ventilation disabled. Readings above 1,200 ppm need more outside air.
ahu-damper-actuator | Damper actuator not moving | If the actuator hums but the blade does not move, the linkage has slipped on the shaft. Tighten the clamp with the damper fully closed.
ahu-condensate-tray | Cooling coil drain pan | Water dripping from the ceiling below a fan coil is usually a blocked condensate drain. Flush the trap and clean the drain pan with biocide tablets.
ahu-vav-noise | VAV box whistling | A whistle from the ceiling air outlets means the static pressure setpoint is too high. Lower the duct pressure setpoint in steps of 25 Pa until the noise stops.
tower-legionella | Cooling tower legionella control | Sample the basin for legionella every quarter and keep the biocide dosing running. A count above 1,000 cfu per litre needs disinfection and a review of dead legs.
tower-drift | Cooling tower drift eliminators | Cracked or missing drift eliminators let droplets escape; white mineral spots on parked cars nearby are a sign. Replace the damaged packs.
tower-fill-fouling | Cooling tower fill fouling | Fill packs blocked with scale and algae reduce cooling. Inspect them through the access door each spring and clean with low-pressure water only.
tower-fan-vibration | Cooling tower fan vibration switch | The vibration switch stops the tower fan when a blade is damaged or ice builds on it. Inspect the blades before resetting; never bypass the switch.
tower-blowdown | Cooling tower blowdown | Conductivity controls the bleed: above 2,500 µS/cm the blowdown valve opens. A stuck valve wastes water or lets scale build.
tower-basin-heater | Basin heater in winter | The basin heater keeps the water from freezing while the tower is idle. It may only run when the level switch shows the element submerged.
conv-belt-tracking | Conveyor belt tracking | A belt that runs to one side rubs the frame and frays its edge. Adjust the tail pulley take-up a quarter turn at a time while the belt runs empty.
conv-slip-cold | Conveyor belt slip on cold mornings | The drive pulley slips in cold weather because its lagging hardens. Increase the take-up tension slightly and check the pulley lagging for wear.
conv-roller-seized | Seized conveyor rollers | A seized idler roller wears a flat spot into the belt and can overheat. Listen along the line for squealing rollers and replace them.
conv-emergency-pull | Pull-wire emergency stop | Test every pull-wire stop monthly. The line must stop within the distance in the risk assessment and restart only after the switch is reset by hand.
conv-spillage | Spillage at transfer points | Spillage under a chute means the skirt rubber is worn or the belt is off centre under the load. Replace the skirts and add impact idlers.
conv-sorter-jam | Parcel sorter jams | Sorter jams at the merge usually come from parcels with loose straps. The photo eye at the merge must be cleaned each shift.
conv-gearmotor-oil | Conveyor gearmotor oil leak | Oil on the floor under the drive is a failed output shaft seal. Replace it and check that the breather is not blocked.
fork-battery-watering | Forklift battery watering | Top up lead acid traction batteries with distilled water after charging, never before. The electrolyte should cover the plates by 6 mm.
fork-hydraulic-drift | Forklift mast drifting down | A mast that creeps down with a load has a worn lift cylinder seal or a leaking lowering valve. Take the truck out of service until it is repaired.
fork-daily-check | Forklift pre-shift check | Before each shift check the horn, brakes, forks for cracks, chains, tyres and the warning light. Do not drive a truck that failed its check; tag it out.
fork-lpg-change | Changing an LPG cylinder on a forklift | Close the cylinder valve, run the engine until it stalls, then change the cylinder outdoors wearing gloves. Check the new connection with leak spray.
fork-charger-fault | Battery charger fault light | A red fault light on the charger usually means a cell has failed and the voltage never reaches the end of charge. Test the specific gravity of each cell.
fork-error-e215 | Lindmark truck error E215 | E215 on Lindmark electric trucks means the seat switch is open while drive is requested. Check the seat switch connector under the seat.
fork-tyres | Forklift tyre wear | Replace solid tyres when worn to the wear line or when chunks are missing. Uneven tyres make the truck unstable with a raised load.
gen-weekly-test | Standby generator weekly test | Run the diesel generator off-load for 15 minutes every week and on load every month. Log the start time, oil pressure and coolant temperature.
gen-wet-stacking | Diesel wet stacking | Black oily deposits in the exhaust appear when the generator runs too long at light load. Run it at 70 percent load on a load bank for two hours a year.
gen-fuel-polish | Diesel fuel polishing | Stored diesel grows bacteria and collects water at the bottom of the tank. Polish the fuel every year and test it for water before winter.
gen-no-start | Generator fails to start | If the engine cranks but does not start, check power to the fuel solenoid, the fuel level, and air in the fuel filter. A weak battery shows as slow cranking.
gen-block-heater | Generator block heater | The coolant heater keeps the engine warm so it can take load within ten seconds. A cold block in winter means the heater or its thermostat has failed.
gen-ats | Automatic transfer switch test | Simulate a mains failure monthly by opening the incoming breaker. The transfer switch must move to the generator within ten seconds and back after mains has been stable for five minutes.
elec-thermography | Infrared scan of switchboards | Scan switchboards under load each year with the thermal camera. A connection 10 °C warmer than its neighbours needs retightening at the next shutdown.
elec-rcd-test | Residual current device test | Press the test button on every RCD each quarter; it must trip at once. An RCD that does not trip must be replaced, not reset.
elec-lockout | Lockout and tagout | Before work on any machine, isolate every energy source, fit your own padlock and tag, and prove dead with a tester you checked on a known live source.
elec-breaker-inrush | Breaker trips when a big load starts | A breaker that trips only when a large motor or heater starts is sized too close to the inrush. Check the curve type; a D curve tolerates inrush.
elec-power-factor | Power factor correction bank | Capacitor banks fail with bulging cans or a burnt smell. A low power factor on the electricity bill is the first sign that steps have dropped out.
elec-earth-test | Earth electrode resistance | Measure the earth electrode resistance every year in dry weather. Above 10 ohms the protection may not clear a fault quickly.
elec-surge | Surge protection devices | A red flag in the window of a surge protector means its module has absorbed a surge and must be changed.
ups-battery-life | UPS battery replacement | Sealed lead acid UPS batteries last three to five years, less in a warm room. Replace the whole string when runtime falls below half its rating.
ups-bypass | UPS on bypass | If the UPS shows bypass, the load is on raw mains with no protection. Find why it transferred, often an overload or a failed fan, before returning to inverter.
ups-runtime | UPS runtime calibration | Run a calibration discharge twice a year so that the runtime estimate is right. Do it when a power cut would do no harm.
ups-room-temp | Battery room temperature | Every 10 °C above 25 °C halves the life of the batteries. Keep the battery room cooled and alarm above 30 °C.
ups-alarm-beeping | UPS beeping every few seconds | Beeping every few seconds means the unit is running on battery. A steady tone means the battery is nearly flat: shut the servers down now.
ups-code-w12 | Eltron UPS warning W12 | W12 on Eltron PowerCore units means the battery self-test failed. Check that the battery breaker is closed before ordering a new string.
plc-battery | PLC memory battery | Change the PLC backup battery every two years with power on, or the program is lost. Keep a copy of the program on the engineering laptop.
plc-io-fault | Remote IO station fault | A flashing red light on a remote IO station means it has lost the fieldbus. Check the connector and the terminating resistor at the last station.
plc-hmi-frozen | Operator panel frozen | If the HMI screen stops updating while the line runs, restart the panel only; the PLC keeps control. Report it if it happens twice in a week.
plc-program-backup | Program backup before changes | Save and date a backup of the program before any online edit. Store it on the shared drive under the machine number.
plc-watchdog | Controller watchdog stop | A watchdog stop means the scan time exceeded its limit, often after a new loop in the code. Read the diagnostic buffer before restarting.
plc-safety-relay | Safety relay will not reset | A safety relay that will not reset has an open guard or e-stop in its chain, or a welded contact seen by its feedback loop. Check each guard switch.
plc-firmware | Drive and PLC firmware updates | Update firmware only in a planned shutdown and with the vendor release notes at hand. Never update during production.
inst-pressure-drift | Pressure transmitter drift | Calibrate pressure transmitters yearly against the reference gauge. A reading that drifts with the weather points at a blocked vent on a gauge transmitter.
inst-thermocouple | Thermocouple reading wrong | A temperature that reads ambient while the oven is hot means the thermocouple is open or the wrong extension cable is fitted.
inst-flowmeter-empty | Magnetic flowmeter reads zero | A magmeter that reads zero or jumps around with flow through the line is often running partly empty. It must sit where the pipe is always full.
inst-level-radar | Radar level sensor false echo | A radar level sensor stuck at one reading is seeing an echo from a ladder or agitator. Record a false echo map with the tank empty.
inst-ph-probe | pH probe calibration | Calibrate pH probes weekly with buffers 4 and 7. A slow or drifting response means the glass is coated; clean it with dilute acid.
inst-gas-detector | Fixed gas detector bump test | Bump test each fixed gas detector monthly with test gas. Calibrate every six months and replace sensors past their printed expiry.
inst-scale | Platform scale check | Check the platform scale daily with a test weight. Any error above two divisions needs the calibration contractor.
inst-vibration | Vibration monitoring | Take vibration readings on critical motors monthly. A rise of 50 percent over the baseline calls for a bearing inspection.
valve-steam-trap | Steam trap survey | A trap failed open passes live steam into the condensate line and wastes energy; one failed closed floods the coil. Survey the traps with the ultrasonic tester yearly.
valve-packing | Valve stem packing leak | A wisp of steam at the valve stem means the gland packing needs tightening. Tighten evenly a little at a time; repack it if it still leaks.
valve-water-hammer | Water hammer in steam lines | A loud bang in the steam main at start-up is water hammer from condensate collecting in low points. Warm up slowly and check the drain pockets.
valve-check-slam | Check valve slam | A check valve that slams when the pump stops causes pressure surges. Fit a non-slam check valve or slow the stop with the drive ramp.
valve-stroke-check | Control valve stroke check | Stroke control valves from 0 to 100 percent and compare with the positioner feedback. Recalibrate positioners that are off by more than 2 percent.
valve-prv-hunting | Pressure reducing valve hunting | A reducing valve that hunts up and down is oversized for the flow. Fit a smaller valve or a pilot-operated one.
valve-sv-lever | Safety valve test lever | Lift safety valves by the test lever at 75 percent of set pressure once a year to prove they are not stuck.
drive-overcurrent | Drive overcurrent trip | An overcurrent trip on acceleration means the ramp is too short for the load. Lengthen the acceleration time or look for a jammed machine.
drive-overvoltage | Drive DC bus overvoltage when stopping | Overvoltage while decelerating means the motor is feeding energy back. Lengthen the deceleration ramp or fit a braking resistor.
drive-fan | Drive cooling fan | Drive cooling fans wear out in four to six years. A drive that trips on heatsink temperature in summer usually has a dead fan or a dusty heatsink.
drive-fault-f0002 | Vexon drive fault F0002 | F0002 on Vexon V20 drives is DC link overvoltage. The remedy is the same: a longer ramp-down or a braking resistor.
drive-motor-insulation | Motor insulation test | Megger the motor windings at 500 V before restarting a motor that has been wet. Below 1 megohm, dry it out in an oven.
drive-bearing-grease | Motor bearing regreasing | Grease motor bearings at the hours on the nameplate with the specified grease. Too much grease overheats bearings as surely as too little.
drive-motor-hot | Motor running hot | A motor too hot to touch may be overloaded, running on a single phase, or have a blocked fan cowl. Measure all three currents.
gear-oil-change | Gearbox oil change | Change mineral gear oil every 10,000 hours and synthetic every 20,000. Take an oil sample first; metal particles point at gear wear.
gear-noise | Gearbox whine | A new whine that rises with speed comes from gear tooth wear or a failing bearing. Compare a vibration spectrum with the baseline.
gear-breather | Gearbox breather | A blocked breather pressurizes the case and pushes oil past the seals. Replace it with a desiccant breather in wet areas.
gear-temperature | Gearbox overheating | Gearboxes should not run above 90 °C. Check the oil level and grade, and that the cooling fan on the input shaft is intact.
gear-backlash | Backlash on an indexing table | Positioning errors on an indexing table often come from backlash in the worm gear. Adjust the worm eccentric as the service manual says.
hyd-oil-hot | Hydraulic oil overheating | Oil above 60 °C ages quickly and loses viscosity. Clean the oil cooler and check whether the relief valve is passing oil all the time.
hyd-cylinder-drift | Press ram creeping down | A press ram that creeps down with the valve centred has a leaking piston seal or a leaking counterbalance valve. Test each in turn.
hyd-filter-indicator | Hydraulic filter clogging indicator | The return filter indicator pops red when the element is blocked; the oil then bypasses unfiltered. Change the element the same day.
hyd-hose-inspection | Hydraulic hose inspection | Replace hoses with cracked covers, bulges or leaking fittings. Never feel for a pinhole leak with a hand: injected oil is a surgical emergency.
hyd-pump-noise | Hydraulic pump whining | A whining hydraulic pump is drawing air or cavitating. Check the suction line, the oil level and the suction strainer.
hyd-accumulator | Accumulator precharge | Check the accumulator nitrogen precharge every six months with the system depressurized. Use only nitrogen, never oxygen or air.
cnc-spindle-warmup | Spindle warm-up | Run the spindle warm-up program for ten minutes before precision work. Thermal growth shifts the tool by microns.
cnc-coolant | Machine coolant concentration | Check the coolant concentration with the refractometer daily and keep it between 6 and 8 percent. Coolant that smells has bacteria; skim the tramp oil.
cnc-following-error | Axis following error alarm | A following error alarm means the axis could not keep up with the command. Check for a crash, a lubrication failure or a loose coupling on the ballscrew.
cnc-way-lube | Way lubrication | The way lube tank empties in about a month. A low lube alarm stops the machine at the end of the cycle.
cnc-tool-breakage | Tool breakage detection | The tool probe checks the length after each roughing cut. A broken tool stops the program so the next part is not scrapped.
cnc-alarm-1010 | Fanoc alarm 1010 | Alarm 1010 on Fanoc controls means the emergency stop chain is open. Check the door interlocks and the e-stop buttons on the pendant.
cnc-chip-conveyor | Chip conveyor jammed | Long stringy chips wrap the hinge belt of the chip conveyor. Use chip breaking inserts, and clear the conveyor with the machine locked out.
weld-porosity | Porosity in MIG welds | Holes in the weld bead come from lost gas shielding: a draught, an empty cylinder, a leak in the gas hose, or spatter blocking the nozzle.
weld-wire-feed | Wire feed birdnesting | Wire tangling at the drive rolls means too much drive roll pressure or a worn liner. Match the liner and contact tip to the wire size.
weld-fume | Welding fume extraction | Use on-torch or local extraction for all welding. Check the airflow of each extraction arm yearly; stainless fume needs extra care.
weld-robot-tcp | Welding robot tool centre point | After a torch crash, check the tool centre point with the alignment jig; a bent neck moves every weld.
weld-gas-cylinder | Gas cylinder storage | Store cylinders upright and chained, with caps on when not in use. Keep oxygen three metres away from fuel gases.
weld-earth-clamp | Welding earth clamp | Poor arc starts and spatter can come from a loose or dirty earth clamp. Clamp on clean metal close to the weld.
lab-balance | Analytical balance drift | A balance that will not settle is disturbed by draughts, vibration or static. Level it, close its doors and use an antistatic gun on plastic.
lab-autoclave | Autoclave cycle failure | A sterilization cycle that fails on temperature usually has a blocked chamber drain strainer. Clean it daily.
lab-fume-hood | Fume hood face velocity | Fume hoods must pull 0.5 m/s at the working sash height. The alarm sounds when the airflow drops; do not work in a hood that alarms.
lab-fridge | Sample fridge temperature | Lab fridges must stay between 2 and 8 °C. A door left open alarms; frost build-up needs a defrost.
lab-centrifuge | Centrifuge imbalance | A centrifuge that shakes and stops has an unbalanced load. Load opposite tubes with equal volumes.
lab-hplc-pressure | HPLC high pressure | Pressure climbing on the HPLC points at a blocked inline filter or column frit. Replace the inline filter before the column.
it-disk-raid | Server disk failure in a RAID | An amber light on a server drive means the RAID array is degraded. Replace the failed disk with one of the same size and let it rebuild.
it-server-room-temp | Server room too hot | Server room above 27 °C: check the room air conditioner, and that blanking panels fill the empty rack spaces.
it-backup | Nightly backup failed | A failed nightly backup must be run again the same day. Test a restore every month; an untested backup is not a backup.
it-cert-expiry | Certificate expiry | Renew TLS certificates 30 days before they expire. Expired certificates stop the badge readers and the SCADA web clients.
it-account-locked | Account locked out | After five wrong passwords an account is locked for 15 minutes. The service desk can unlock it after checking identity.
it-patching | Patching control system PCs | Patch control system PCs only after the vendor has approved the update, in the monthly window.
net-switch-loop | Network loop | A network loop floods the switches and stops everything on the floor. Spanning tree must be on; look for a cable plugged back into the same switch.
net-wifi-dead-spots | Wireless dead spots in the warehouse | Handheld scanners lose connection between high racks. Add access points in the aisles rather than raising the power.
net-poe | Power over Ethernet budget | Cameras dropping out at night when their infrared comes on have exceeded the PoE budget of the switch. Check the budget per port.
net-fibre | Fibre link errors | CRC errors on a fibre link point at a dirty connector. Clean both ends with a click cleaner and inspect them with the scope.
net-dhcp | Devices without an address | New devices that get no IP address on a VLAN usually mean the DHCP scope is full. Check the leases and shorten the lease time.
office-label-printer | Label printer printing faint | Faint or blank lines on thermal labels mean the print head is dirty. Clean it with isopropyl alcohol and check the darkness setting.
office-paper-jam | Copier paper jams | Repeated jams in tray 2 come from damp paper or worn pickup rollers. Keep paper wrapped until it is used.
office-toner | Toner ordering | Order toner when the printer reports 10 percent. Keep one spare set on each floor.
office-projector | Projector shows no signal | No signal on the meeting room projector: select the right input, and try another cable before calling IT.
office-coffee | Coffee machine descaling | Descale the coffee machine when its light shows, usually monthly. Use only the approved descaler.
lift-entrapment | Person trapped in a lift | Talk to the passenger through the intercom, call the emergency line of the lift contractor, and do not try to open the doors yourself.
lift-door-reopen | Lift doors keep reopening | Doors that reopen again and again have a dirty or misaligned light curtain, or something in the sill track.
lift-levelling | Lift stopping out of level | A car that stops above or below the floor is a trip hazard. Take the lift out of service and call the contractor.
door-rapid-roll | High speed roller door reversing | A rapid door that reverses while closing sees an obstruction at its photo cell or safety edge. Clean the sensors and check the edge cable.
door-dock-leveller | Dock leveller | Dock levellers need the lip hinge greased monthly. A leveller that will not rise is low on hydraulic oil.
door-fire-door | Fire door closers | Fire doors must close fully and latch from any angle. Wedging them open is a serious offence.
fire-alarm-test | Weekly fire alarm test | Test one call point each week at the same time, rotating through all of them. Log the number of the call point.
fire-extinguisher | Fire extinguisher checks | Check monthly that extinguishers are in place, sealed, and that the gauge is in the green. The contractor services them every year.
fire-sprinkler | Sprinkler valve set | Run the sprinkler pump weekly and check the pressure gauges of the installation valve. Valves that must stay open are chained open.
fire-false-alarm | Smoke detector false alarms | Detectors near kitchens or dusty work set off false alarms. Swap them for heat detectors there, once the fire engineer agrees.
fire-emergency-lights | Emergency lighting test | Flick-test the emergency lights monthly and run a full three-hour discharge test every year.
fire-gas-suppression | Server room gas suppression | Before maintenance in the server room, set the gas suppression to manual and hang the sign on the door.
water-softener | Water softener salt | Keep the brine tank more than half full of salt. Test the hardness of the softened water weekly; hard water means a failed regeneration.
water-ro-membrane | Reverse osmosis membrane fouling | Permeate flow falling and conductivity rising mean the RO membranes are fouled. Clean in place with the acid cleaner, then the alkaline one.
water-uv-lamp | UV disinfection lamp | Change UV lamps every 9,000 hours even if they still glow; their output falls long before they fail. Clean the quartz sleeve.
water-backflow | Backflow preventer test | Test the reduced pressure backflow preventer yearly. Water dumping from its relief port means a check valve is fouled.
water-hot-legionella | Hot water temperature against legionella | Store hot water at 60 °C and make sure it reaches 50 °C at the taps within a minute. Flush little-used outlets weekly.
water-effluent-ph | Effluent pH out of limits | The discharge consent requires pH 6 to 9. The neutralization tank doses acid or caustic; check its pH probe and dosing pumps.
cold-room-ice | Ice on the cold room evaporator | Ice building on the evaporator coil means the defrost heater or its timer has failed, or the door is left open.
cold-room-gasket | Cold room door gasket | A torn door gasket lets warm air in and ice forms around the frame. Replace the gasket and adjust the door closer.
cold-freezer-alarm | Freezer temperature alarm | If the freezer alarms above -15 °C, move the stock to a spare freezer and record the product temperatures.
cold-condenser-clean | Fridge condenser cleaning | Clean the dust from fridge condensers monthly; a blocked condenser makes the compressor run constantly.
cold-ice-machine | Ice machine cleaning | Sanitize ice machines every three months; slime in the bin is a food safety hazard.
cold-dishwasher | Dishwasher rinse temperature | The final rinse must reach 82 °C. A low rinse temperature means the booster heater element has failed.
cold-fryer | Fryer oil | Change the fryer oil when it darkens or smokes, and filter it daily.
light-led-flicker | LED panels flickering | Flickering LED panels usually have a failing driver. Replace the driver, not the panel.
light-high-bay | High bay lamps cycling | Metal halide high bays that go out and come back after some minutes are at the end of their life. Replace them with LED fittings.
light-occupancy | Lights staying on in empty areas | Lights that stay on in empty areas have the occupancy sensor timeout set too long, or the sensor faces a door.
light-outdoor | Outdoor lights on in daytime | The photocell is dirty or faces another light. Clean it and check the daylight saving setting of the time clock.
fleet-adblue | AdBlue warning | A van in limp mode with the AdBlue light on has run out of diesel exhaust fluid or has a failed NOx sensor.
fleet-tyre-pressure | Van tyre pressures | Check tyre pressures weekly when cold; underinflated tyres raise fuel use and wear.
fleet-dpf | Diesel particulate filter regeneration | Short trips block the particulate filter. Drive 20 minutes on the motorway to regenerate it when the light comes on.
fleet-ev-charging | Electric van not charging | If the charge point shows a fault, check the RCD in the charger and try another cable.
fleet-tachograph | Tachograph downloads | Download the driver cards every 28 days and the vehicle unit every 90 days.
pack-sealer | Heat sealer leaking packs | Packs that leak at the seal have a worn PTFE cover on the sealing jaw, or the jaw temperature is too low.
pack-labeller | Labeller skewing labels | Skewed labels come from a worn peel plate or the wrong web tension.
pack-case-erector | Case erector misfeeds | Case blanks that misfeed are warped from damp storage. Check the vacuum cups too.
pack-shrink-tunnel | Shrink tunnel wrinkles | Wrinkles in the shrink film mean the tunnel is too cool or the conveyor too fast.
pack-checkweigher | Checkweigher rejecting good packs | A checkweigher that rejects good packs needs its zero and its reject limits checked.
pack-metal-detector | Metal detector test | Test the metal detector every hour with ferrous, non-ferrous and stainless test pieces; the reject arm must remove each one.
""",
    3,
)

# episode | the guide it is about | entry type | by | text (the outcome closes the episode)
ENTRIES = _table(
    """
ep-chiller2-trip | chiller-low-suction | observation | bms | Chiller 2 tripped on low suction pressure at 14:10; chilled water leaving at 9 °C and rising.
ep-chiller2-trip | chiller-low-suction | action | anna | Found the evaporator flow switch paddle bent; straightened it and reset. Chiller restarted.
ep-chiller2-trip | chiller-low-suction | forecast | planner | Expect the same trip within a week unless the strainer upstream of the evaporator is cleaned.
ep-chiller2-trip | chiller-low-suction | outcome | reviewer | No further trips after the strainer was cleaned on Thursday.
ep-p101-seal | pump-seal-leak | observation | walkround | Puddle under pump P101 in the basement plant room, steady dripping at the shaft.
ep-p101-seal | pump-seal-leak | action | marek | Replaced the mechanical seal with kit SK4410; ran it for an hour with no leak.
ep-p101-seal | pump-seal-leak | outcome | reviewer | Seal still holding after one month.
ep-forklift7-mast | fork-hydraulic-drift | observation | driver | Forklift 7 lets the load sink slowly while parked with pallets raised.
ep-forklift7-mast | fork-hydraulic-drift | action | supervisor | Truck tagged out of service; lift cylinder reseal booked with the dealer.
ep-forklift7-mast | fork-hydraulic-drift | outcome | reviewer | Cylinder resealed; the load holds its height for 30 minutes in test.
ep-server-heat | it-server-room-temp | observation | bms | Server room reached 31 °C overnight; the compressor of the room cooler was not running.
ep-server-heat | it-server-room-temp | action | it-oncall | Opened the doors and brought in portable cooling; moved the backup jobs to daytime.
ep-server-heat | it-server-room-temp | forecast | hvac-contractor | The compressor contactor is probably burnt; parts expected in two days.
ep-server-heat | it-server-room-temp | outcome | reviewer | Contactor replaced; the room is back at 22 °C.
ep-boiler1-lockout | boiler-flame-failure | observation | caretaker | Boiler 1 locked out three times this morning on flame failure.
ep-boiler1-lockout | boiler-flame-failure | action | gas-engineer | Cleaned the flame rod and reset the ignition electrode gap to 3 mm.
ep-boiler1-lockout | boiler-flame-failure | outcome | reviewer | Boiler firing normally since Monday.
ep-dock3-door | door-rapid-roll | observation | warehouse | Dock door 3 reverses halfway down every time it closes.
ep-dock3-door | door-rapid-roll | action | electrician | Cleaned the photo cell lenses, which were covered in cardboard dust.
ep-dock3-door | door-rapid-roll | outcome | reviewer | Door closes normally again.
ep-line4-belt | conv-belt-tracking | observation | operator | Line 4 conveyor belt running off to the left and fraying its edge.
ep-line4-belt | conv-belt-tracking | action | fitter | Adjusted the tail pulley take-up two quarter turns; belt now centred.
ep-line4-belt | conv-belt-tracking | outcome | reviewer | Tracking held for a week; the edge was repaired at the weekend.
ep-ro-quality | water-ro-membrane | observation | lab | RO permeate conductivity up from 8 to 25 microsiemens over two weeks.
ep-ro-quality | water-ro-membrane | action | water-tech | Ran an acid clean and then an alkaline clean on both membrane stages.
ep-ro-quality | water-ro-membrane | forecast | water-tech | The membranes are near the end of their life; plan to replace them in spring.
ep-ro-quality | water-ro-membrane | outcome | reviewer | Conductivity back to 10 after the cleaning.
ep-gen-start | gen-no-start | observation | facilities | Standby generator failed its weekly test: cranked for 30 seconds but would not fire.
ep-gen-start | gen-no-start | action | mechanic | Bled air from the fuel filter housing, left there by last week's filter change.
ep-gen-start | gen-no-start | outcome | reviewer | Started first time on the retest.
ep-ups-storm | ups-alarm-beeping | observation | it-oncall | The UPS in the comms room alarmed and ran on battery for four minutes during the storm.
ep-ups-storm | ups-alarm-beeping | action | it-oncall | Checked battery health after the event; one block reads low voltage.
ep-ups-storm | ups-alarm-beeping | outcome | reviewer | Battery string replaced under warranty.
ep-coldroom-ice | cold-room-ice | observation | chef | Thick ice on the evaporator in the kitchen cold room; room at 9 °C.
ep-coldroom-ice | cold-room-ice | action | refrigeration | Manual defrost; the defrost timer was stuck and has been replaced.
ep-coldroom-ice | cold-room-ice | outcome | reviewer | Cold room holding 3 °C.
ep-leaks-q3 | comp-leak-survey | observation | energy | Ultrasonic survey found 42 leaks in the packing hall, the worst at the quick couplings on line 2.
ep-leaks-q3 | comp-leak-survey | action | fitter | Replaced 30 couplings; the remaining leaks are tagged for the shutdown.
ep-leaks-q3 | comp-leak-survey | outcome | energy | Compressor running hours per week down by 18 percent.
ep-tower-legionella | tower-legionella | observation | water-tech | Quarterly sample of the cooling tower basin came back at 3,000 cfu per litre.
ep-tower-legionella | tower-legionella | action | water-tech | Tower shut down and disinfected with chlorine; the dead leg on the bypass was cut out.
ep-tower-legionella | tower-legionella | outcome | reviewer | The resample came back clear.
ep-cnc3-crash | cnc-following-error | observation | setter | Machining centre 3 hit the vise with the tool during setup; axis alarm on the screen.
ep-cnc3-crash | cnc-following-error | action | maintenance | Checked spindle runout and the ballscrew coupling; runout within 5 microns.
ep-cnc3-crash | cnc-following-error | outcome | reviewer | Machine released to production after a test cut.
ep-line6-detector | pack-metal-detector | observation | qa | Metal detector on line 6 missed the stainless test piece at the 10:00 check.
ep-line6-detector | pack-metal-detector | action | qa | Product since the last good check is on hold; the engineer re-tuned the detector.
ep-line6-detector | pack-metal-detector | outcome | reviewer | Held product rechecked; no contamination found.
""",
    5,
)

# style | over | expected keys or ids, space separated | question
QUERIES = _table(
    """
words | guides | pump-seal-leak | mechanical seal leaking at the pump shaft
words | guides | comp-discharge-temp | screw compressor high discharge temperature trip
words | guides | boiler-low-water | boiler low water cutoff test
words | guides | ahu-filter-dp | air handler bag filter differential pressure
words | guides | conv-belt-tracking | conveyor belt tracking to one side
words | guides | fork-battery-watering | forklift battery distilled water top up
words | guides | gen-fuel-polish | diesel fuel polishing bacteria in the tank
words | guides | elec-rcd-test | RCD test button does not trip
words | guides | ups-battery-life | replace UPS batteries when runtime falls
words | guides | plc-battery | PLC backup battery change
words | guides | inst-ph-probe | calibrate pH probe with buffers
words | guides | valve-steam-trap | steam trap survey ultrasonic
words | guides | drive-overvoltage drive-fault-f0002 | braking resistor for overvoltage when decelerating
words | guides | hyd-filter-indicator | hydraulic return filter indicator red
words | guides | cnc-coolant | coolant concentration refractometer
words | guides | weld-porosity | porosity holes in MIG weld bead
words | guides | lab-fume-hood | fume hood face velocity alarm
words | guides | it-disk-raid | RAID degraded amber light on a drive
words | guides | net-switch-loop | spanning tree network loop
words | guides | pack-metal-detector | metal detector test pieces every hour
words | guides | fire-emergency-lights | emergency lighting discharge test
words | guides | water-ro-membrane | reverse osmosis membrane clean in place
meaning | guides | pump-sump-float | cellar drainage unit buzzes but never switches on
meaning | guides | pump-cavitation | sounds like stones are going through the pump
meaning | guides | comp-wet-air | our pneumatic tools are spitting moisture
meaning | guides | boiler-flame-failure | the heater keeps shutting itself off a few seconds after ignition
meaning | guides | tower-drift | staff cars get speckled with residue from the roof equipment
meaning | guides | fork-hydraulic-drift | the forks slowly sink while holding a pallet up
meaning | guides | gen-no-start | the emergency power plant will not fire up when the grid goes down
meaning | guides | elec-thermography | finding overheating connections inside electrical cabinets with a camera
meaning | guides | ups-alarm-beeping | the backup power box keeps chirping
meaning | guides | plc-hmi-frozen | touchscreen on the production line stopped refreshing
meaning | guides | inst-thermocouple | oven sensor shows room temperature although the oven is blazing
meaning | guides | valve-water-hammer | a bang in the pipes every morning when the heating comes on
meaning | guides | drive-overcurrent | the inverter trips whenever the machine speeds up
meaning | guides | gear-breather | lubricant is being forced out around the shaft seals of the reducer
meaning | guides | hyd-hose-inspection | a fine jet of fluid from a pipe pierced someone's skin
meaning | guides | weld-wire-feed | the welding wire is tangling up at the feeder
meaning | guides | lab-balance | the weighing instrument in the lab won't settle on a number
meaning | guides | it-server-room-temp | the computer room is overheating
meaning | guides | net-wifi-dead-spots | barcode guns lose wifi between the tall shelving
meaning | guides | net-poe | security cameras go dark at night
meaning | guides | office-label-printer | stickers come out very light
meaning | guides | lift-entrapment | someone is stuck inside the elevator
meaning | guides | fire-false-alarm | smoke sensors keep going off when we cook
meaning | guides | cold-room-ice | the walk-in chiller coil is covered in frost
meaning | guides | fleet-adblue | van lost power and shows an exhaust fluid warning on the dashboard
meaning | guides | pack-sealer | bags are leaking where they are closed
meaning | guides | elec-lockout | how do I make sure nobody switches the machine on while I am repairing it
meaning | guides | ahu-co2 | people feel drowsy in the conference room after lunch
code | guides | comp-fault-e47 | what does E47 mean
code | guides | boiler-code-f28 | F28 on ecoTEC
code | guides | chiller-alarm-a31 | A31 Cryon
code | guides | fork-error-e215 | error E215
code | guides | ups-code-w12 | W12 Eltron
code | guides | drive-fault-f0002 | F0002
code | guides | cnc-alarm-1010 | alarm 1010
code | guides | pump-seal-leak | SK4410
code | guides | comp-oil-carryover | OS118 element
code | guides | comp-fault-e47 | KT400
code | guides | pump-bearing-oil | ISO VG 68
code | guides | chiller-alarm-a31 | RS485 termination
code | guides | drive-fault-f0002 | Vexon V20
code | guides | fork-error-e215 | Lindmark
words | entries | ep-boiler1-lockout/2 | cleaned flame rod and reset electrode gap
words | entries | ep-dock3-door/2 | photo cell lenses covered in cardboard dust
words | entries | ep-gen-start/1 | generator failed weekly test would not fire
words | entries | ep-line6-detector/1 | metal detector missed stainless test piece
words | entries | ep-line4-belt/2 | adjusted tail pulley take-up belt centred
meaning | entries | ep-forklift7-mast/1 | the raised load on the lift truck slowly comes down by itself
meaning | entries | ep-server-heat/1 | the computer room got too warm during the night
meaning | entries | ep-ups-storm/1 | mains cut out in bad weather and we ran on batteries
meaning | entries | ep-leaks-q3/3 | how much energy did fixing the air leaks save
meaning | entries | ep-tower-legionella/1 | bacteria count in the roof cooling unit water was too high
meaning | entries | ep-ro-quality/1 | purified water quality getting worse
meaning | entries | ep-cnc3-crash/1 | the cutter collided with the workholding while setting up
meaning | entries | ep-ro-quality/3 | what did we predict would happen to the filtration membranes
code | entries | ep-p101-seal/2 | SK4410
code | entries | ep-p101-seal/1 | P101
""",
    4,
)
